// Every outbound HTTP call of the product (the provider, Khalti) goes through undici, loaded on
// the first call, and only its connection pool and `request`: the package's index also loads
// fetch, WebSocket and the caches, 14 MB of idle RSS the bot never uses (bench/RESULTS.md).

import type { Dispatcher, Pool } from "undici";

type HttpRequest = Omit<Dispatcher.RequestOptions, "origin">;
type HttpResponse = Dispatcher.ResponseData;

/** Keep-alive connections to one origin, opened by the first request. */
export interface HttpPool {
  request(request: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** `Dispatcher.prototype.request`, which the package's index would attach. */
type Send = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<HttpResponse>;

let undici: Promise<{ Pool: typeof Pool; send: Send }> | undefined;

/**
 * Loaded on the first call. No V8 flag is changed at run time (Node documents that as
 * unpredictable): undici's WebAssembly parser is compiled as V8 compiles any code.
 */
const loadUndici = () => {
  undici ??= Promise.all([
    import("undici/lib/dispatcher/pool.js"),
    import("undici/lib/api/api-request.js"),
  ]).then(([pool, request]) => ({ Pool: pool.default, send: request.default }));
  return undici;
};

export function httpPool(origin: string, options: Pool.Options): HttpPool {
  let pool: Pool | undefined;
  return {
    async request(request) {
      const { Pool, send } = await loadUndici();
      pool ??= new Pool(origin, options);
      return send.call(pool, { ...request, origin });
    },
    async close() {
      await pool?.close();
    },
  };
}
