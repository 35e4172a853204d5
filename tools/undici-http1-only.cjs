// Stands in for undici's HTTP/2 client in the bundle (tools/build.mjs). The bot's pools never
// allow HTTP/2 (undici's default), so this is never called; the real module would load
// node:http2 with the first request, about 1.5 MB of idle RSS for nothing.
module.exports = function connectH2() {
  throw new Error("HTTP/2 is not part of this build");
};
