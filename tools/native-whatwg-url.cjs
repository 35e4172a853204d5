// Stands in for `whatwg-url` in the bundle (tools/build.mjs). node-fetch, under grammY, takes
// Node's own URL first (`Url.URL || whatwgUrl.URL`) and never uses this one; the package would
// still load tr46's Unicode table into the heap at start, about 1 MB for nothing.
module.exports = { URL: globalThis.URL };
