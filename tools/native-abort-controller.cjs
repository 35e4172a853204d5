// Stands in for the `abort-controller` polyfill in the bundle (tools/build.mjs): Node 20 has
// both classes built in, and node-fetch, under grammY, accepts a signal only when its class is
// named "AbortSignal". Bundled, the polyfill's class could be renamed; the built-in never is.
module.exports = globalThis.AbortController;
module.exports.AbortController = globalThis.AbortController;
module.exports.default = globalThis.AbortController;
module.exports.AbortSignal = globalThis.AbortSignal;
