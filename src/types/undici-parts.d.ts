// The two parts of undici the product loads (src/adapters/http-client.ts): its package index
// would load fetch, WebSocket and caches too, none of which the bot uses.
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";

  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  /** Dispatcher.prototype.request, which the package's index attaches. */
  function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
  export default request;
}
