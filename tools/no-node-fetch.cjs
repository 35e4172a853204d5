// Stands in for `node-fetch` in the bundle (tools/build.mjs). grammY's Node shim imports it as
// its default HTTP client, but the bot hands grammY a fetch on undici (src/app.ts), so it is never
// called; the package would still load at start, with whatwg-url and tr46's Unicode table.
module.exports = function nodeFetchIsNotBundled() {
  throw new Error("node-fetch is not part of this build: grammY's fetch is undici's pool");
};
