// Stands in for prom-client's Pushgateway in the bundle (tools/build.mjs). The bot is scraped
// (/metrics) and never pushes; the real module loads node:https and node:zlib when prom-client
// is imported, on the critical path of every start.
module.exports = class Pushgateway {
  constructor() {
    throw new Error("prom-client's Pushgateway is not part of this build");
  }
};
