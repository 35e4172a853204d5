// Every outbound HTTP call of the product (the Bot API, the provider, Khalti) goes through
// undici, loaded on the first call, and only its connection pool and `request`: the package's
// index also loads fetch, WebSocket and the caches, 14 MB of idle RSS the bot never uses
// (bench/RESULTS.md).

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

/**
 * grammY's HTTP client (its `client.fetch` option) on undici's pools, as every other outbound
 * call: grammY's own, node-fetch 2, calls Node's deprecated `url.parse()` (DEP0169). grammY
 * calls `fetch(url, { method, headers, body, signal })` and reads the answer with `json()` only
 * (Telegram answers every call, a refusal too, with its JSON envelope). undici's own `fetch`
 * did the same at twice the CPU per Bot API call (its Request, Response, Headers and web
 * streams for each): a page turn's CPU went from 1.5 to 2.1 times the bare grammY bot's.
 */
export function telegramFetch(options: Pool.Options = {}): typeof fetch {
  const pools = new Map<string, HttpPool>();
  const call = async (input: string, init: RequestInit = {}) => {
    const url = new URL(input);
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = httpPool(url.origin, options);
      pools.set(url.origin, pool);
    }
    const answer = await pool.request({
      method: (init.method ?? "GET") as Dispatcher.HttpMethod,
      path: `${url.pathname}${url.search}`,
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as Dispatcher.DispatchOptions["body"],
      signal: nativeSignal(init.signal),
    });
    return {
      ok: answer.statusCode >= 200 && answer.statusCode < 300,
      status: answer.statusCode,
      json: () => answer.body.json(),
    };
  };
  return call as unknown as typeof fetch;
}

/**
 * grammY's signals are Node's own AbortSignal in the bundle (tools/native-abort-controller.cjs)
 * and the `abort-controller` package's elsewhere (the sources run by tsx: tests, the
 * playground), followed here by a native one, which undici takes for certain.
 */
function nativeSignal(given: AbortSignal | null | undefined): AbortSignal | undefined {
  if (!given || given instanceof AbortSignal) return given ?? undefined;
  // The package's own class, with the same members.
  const signal: AbortSignal = given;
  const native = new AbortController();
  if (signal.aborted) native.abort(signal.reason);
  else signal.addEventListener("abort", () => native.abort(signal.reason), { once: true });
  return native.signal;
}
