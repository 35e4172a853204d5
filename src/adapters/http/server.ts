// The bot's HTTP server, apart from the bot itself: Telegram's webhook POSTs, the health checks
// a load balancer or orchestrator asks, the pages a browser opens, and the Prometheus metrics
// (on a listener of their own, or behind a bearer token). It knows nothing of grammY: the
// webhook hands each update to a function and answers once it is taken. Whatever it refuses is
// answered at once and its connection closed: no body is read for a request turned away. Idle
// connections hold no room a request needs (connections.ts): kept alive only briefly, closed
// first when a cap is reached.
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Log } from "../../domain/ports.js";
import { TaskGroup } from "../../domain/task-group.js";
import { ClientLimit } from "./client-limit.js";
import { ConnectionBudget } from "./connections.js";

/** Larger bodies are no Telegram update. */
const MAX_BODY_BYTES = 1 << 20;

export type WebhookRejection = "secret" | "stopping" | "malformed" | "too-large";

export interface WebhookRoute {
  /** The path of WEBHOOK_URL. */
  path: string;
  secret: string;
  /**
   * Handles one update; resolves when it is done (long work may go on after). Rejecting before
   * the answer is a 500: Telegram delivers the update again.
   */
  handle(update: unknown): Promise<void>;
  /** Updates answered only once handled, however long it takes (a payment's confirmation). */
  answersOnceHandled(update: unknown): boolean;
  /**
   * Telegram is answered when the update is handled or after this long, whichever comes
   * first; the handling goes on (Telegram would otherwise retry a slow update).
   */
  answerWithinMs: number;
}

/** A page a browser opens (Khalti's return_url, eSewa's pages): GET only, HTML back. */
interface PageRoute {
  path: string;
  /** `path` is a prefix of the page's addresses (`/pay/esewa/` and its offer's uuid). */
  prefix?: boolean;
  /** The one origin the page's form may be posted to; otherwise none. */
  formAction?: string;
  render(query: URLSearchParams, pathname: string): Promise<{ status: number; html: string }>;
}

/** A call to the Mini App's API, as its handler reads it (authentication is its own). */
interface ApiRequest {
  method: string;
  /** The path after the API's prefix ("connections", "purchases/<id>"). */
  path: string;
  query: URLSearchParams;
  /** The `Authorization` header: `tma <initData>`. */
  authorization: string | undefined;
  /** The JSON body of a POST (undefined when none, or not JSON). */
  body: unknown;
}

/** The Mini App's API: JSON in and out, with the pages' headers. */
interface ApiRoute {
  /** Its prefix, ending in "/". */
  path: string;
  handle(request: ApiRequest): Promise<{ status: number; body: unknown }>;
}

/** A Mini App call's body is a few fields. */
const MAX_API_BODY_BYTES = 16 << 10;

/** A file served as it is: the Mini App's page, script, stylesheet and texts. */
interface AssetRoute {
  path: string;
  contentType: string;
  /** The body for this request (texts.json?lang=). */
  body(query: URLSearchParams): string;
  /** Its Content-Security-Policy instead of the pages' (the Mini App's runs its own script). */
  csp?: string;
}

/** The one stylesheet the pages link: served from its own address, so no style is inline. */
interface StylesheetRoute {
  path: string;
  css: string;
}

/**
 * Pages are never cached, framed, sniffed or told where the buyer came from. They run no script
 * and take styles only from this server's own stylesheet: nothing inline, nothing from elsewhere.
 */
const PAGE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/** The stylesheet is the same for everyone: kept a day (its address changes with its text). */
const STYLESHEET_CACHE = "public, max-age=86400";

export interface HttpServerOptions {
  host: string;
  port: number;
  /** The request's headers must be in within this, the whole request within the next. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long a connection is kept open, idle, after its last answer. */
  keepAliveTimeoutMs: number;
  /**
   * Connections kept, in all and per client address: beyond either, the least recently active
   * idle connection is closed to make room, and a new one is refused only when all are busy.
   */
  maxConnections: number;
  maxConnectionsPerClient?: number | undefined;
  webhook?: WebhookRoute | undefined;
  pages?: PageRoute[];
  /** The Mini App's API. */
  api?: ApiRoute | undefined;
  /** The Mini App's files (outside the pages' limit: they ask nobody anything). */
  assets?: AssetRoute[];
  /** The pages' stylesheet. */
  stylesheet?: StylesheetRoute | undefined;
  /** Page requests a client address may make a minute. */
  pagesPerClientPerMinute?: number;
  /** Whether this instance should get traffic (Redis answers). */
  ready(): boolean;
  /** Served at /metrics; with a token, only to `Authorization: Bearer <token>`. */
  metrics?: { contentType: string; render(): Promise<string>; token?: string | undefined };
  onRejected(reason: WebhookRejection): void;
  log: Log;
}

export class HttpServer {
  private server: Server | undefined;
  private stopping = false;
  /** Webhook updates being handled. */
  private readonly handling = new TaskGroup();
  private readonly pageLimit: ClientLimit | undefined;
  private readonly connections: ConnectionBudget<Socket>;

  constructor(private readonly options: HttpServerOptions) {
    const perMinute = options.pagesPerClientPerMinute;
    this.pageLimit = perMinute === undefined ? undefined : new ClientLimit(perMinute);
    this.connections = new ConnectionBudget({
      total: options.maxConnections,
      perClient: options.maxConnectionsPerClient,
    });
  }

  /** The port it listens on (the configured one, or the one the system chose for 0). */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? this.options.port;
  }

  async listen(): Promise<void> {
    const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = this.options;
    const server = createServer(
      {
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        // Node looks for late requests this often (30 s unless told): a fraction of the limit.
        connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 4)),
        keepAliveTimeout: keepAliveTimeoutMs,
      },
      (request, response) => {
        this.busyWhileAnswering(request.socket, response);
        this.route(request, response).catch((error: unknown) => {
          this.options.log.error({ err: error }, "HTTP request failed");
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
      },
    );
    server.on("connection", (socket: Socket) => this.admit(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, this.options.host, resolve);
    });
    this.server = server;
  }

  /**
   * A new connection is kept, making room by closing idle ones if a cap is reached, or closed
   * at once when every connection in the way is busy. (One that sends nothing is answered 408
   * and closed by Node after the headers timeout, counted from the connection.)
   */
  private admit(socket: Socket): void {
    if (!this.connections.admit(socket, socket.remoteAddress ?? "")) {
      socket.destroy();
      return;
    }
    socket.once("close", () => this.connections.closed(socket));
  }

  /** Busy from the request's headers until its answer is sent (or the connection goes). */
  private busyWhileAnswering(socket: Socket, response: ServerResponse): void {
    this.connections.requestStarted(socket);
    response.once("close", () => this.connections.requestEnded(socket));
  }

  /** Not ready any more, and webhook updates go to another replica (Telegram retries a 503). */
  stopTakingWork(): void {
    this.stopping = true;
  }

  /** Waits for the webhook updates being handled. */
  async drain(): Promise<void> {
    await this.handling.drain();
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://bot");
    const webhook = this.options.webhook;
    if (webhook && url.pathname === webhook.path) {
      if (request.method !== "POST") return refuse(response, 405);
      return this.webhook(webhook, request, response);
    }
    const api = this.options.api;
    if (api && url.pathname.startsWith(api.path)) return this.api(api, url, request, response);
    if (request.method !== "GET" && request.method !== "HEAD") return refuse(response, 405);
    const stylesheet = this.options.stylesheet;
    if (stylesheet && url.pathname === stylesheet.path)
      return serveStylesheet(stylesheet, response);
    const asset = this.options.assets?.find((candidate) => candidate.path === url.pathname);
    if (asset) return serveAsset(asset, url, response);
    const page = this.options.pages?.find((candidate) =>
      candidate.prefix ? url.pathname.startsWith(candidate.path) : candidate.path === url.pathname,
    );
    if (page) return this.page(page, url, request, response);
    switch (url.pathname) {
      case "/healthz":
        return end(response, 200, "ok\n");
      case "/readyz": {
        const ready = !this.stopping && this.options.ready();
        return end(response, ready ? 200 : 503, ready ? "ready\n" : "not ready\n");
      }
      case "/metrics":
        return this.metrics(request, response);
      default:
        return refuse(response, 404);
    }
  }

  private async page(
    page: PageRoute,
    url: URL,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (this.pageLimit && !this.pageLimit.take(request.socket.remoteAddress ?? "")) {
      response.writeHead(429, {
        ...PAGE_HEADERS,
        "content-type": "text/plain; charset=utf-8",
        "retry-after": String(this.pageLimit.retryAfterSeconds()),
        connection: "close",
      });
      response.end("too many requests\n");
      return;
    }
    const { status, html } = await page.render(url.searchParams, url.pathname);
    const headers = page.formAction
      ? {
          ...PAGE_HEADERS,
          "content-security-policy": PAGE_HEADERS["content-security-policy"].replace(
            "form-action 'none'",
            `form-action ${page.formAction}`,
          ),
        }
      : PAGE_HEADERS;
    response.writeHead(status, { ...headers, "content-type": "text/html; charset=utf-8" });
    response.end(html);
  }

  private async api(
    api: ApiRoute,
    url: URL,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (request.method !== "GET" && request.method !== "POST") return refuse(response, 405);
    if (Number(request.headers["content-length"] ?? 0) > MAX_API_BODY_BYTES) {
      return refuse(response, 413);
    }
    const body =
      request.method === "POST" ? await readJson(request, MAX_API_BODY_BYTES) : undefined;
    if (body === tooLarge) return refuse(response, 413);
    const answer = await api.handle({
      method: request.method,
      path: url.pathname.slice(api.path.length),
      query: url.searchParams,
      authorization: request.headers.authorization,
      body,
    });
    const json = JSON.stringify(answer.body);
    response.writeHead(answer.status, {
      ...PAGE_HEADERS,
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(json)),
    });
    response.end(json);
  }

  private async metrics(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const metrics = this.options.metrics;
    if (!metrics) return refuse(response, 404);
    if (metrics.token !== undefined) {
      const [scheme, token] = (request.headers.authorization ?? "").split(" ");
      if (scheme?.toLowerCase() !== "bearer" || !sameSecret(token, metrics.token)) {
        response.setHeader("www-authenticate", "Bearer");
        return refuse(response, 401);
      }
    }
    const body = await metrics.render();
    response.writeHead(200, { "content-type": metrics.contentType });
    response.end(body);
  }

  private async webhook(
    route: WebhookRoute,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (!sameSecret(request.headers["x-telegram-bot-api-secret-token"], route.secret)) {
      this.options.onRejected("secret");
      return refuse(response, 401);
    }
    if (this.stopping) {
      this.options.onRejected("stopping");
      return refuse(response, 503);
    }
    if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
      this.options.onRejected("too-large");
      return refuse(response, 413);
    }
    const update = await readJson(request);
    if (update === tooLarge) {
      this.options.onRejected("too-large");
      return refuse(response, 413);
    }
    if (update === undefined) {
      this.options.onRejected("malformed");
      return end(response, 400);
    }
    let failed = false;
    const task = route.handle(update).catch((error: unknown) => {
      failed = true;
      this.options.log.error({ err: error }, "webhook update failed");
    });
    this.handling.track(task);
    let timer: NodeJS.Timeout | undefined;
    const answerAnyway = new Promise<void>((resolve) => {
      if (!route.answersOnceHandled(update)) timer = setTimeout(resolve, route.answerWithinMs);
    });
    await Promise.race([task, answerAnyway]);
    clearTimeout(timer);
    end(response, failed ? 500 : 200);
  }
}

/**
 * The pages' stylesheet, with their headers but kept a while. Not counted against a client's
 * pages a minute: it asks nobody anything, and a page without it would still work, only bare.
 */
function serveStylesheet(stylesheet: StylesheetRoute, response: ServerResponse): void {
  response.writeHead(200, {
    ...PAGE_HEADERS,
    "cache-control": STYLESHEET_CACHE,
    "content-type": "text/css; charset=utf-8",
    "content-length": String(Buffer.byteLength(stylesheet.css)),
  });
  response.end(stylesheet.css);
}

function serveAsset(asset: AssetRoute, url: URL, response: ServerResponse): void {
  const body = asset.body(url.searchParams);
  response.writeHead(200, {
    ...PAGE_HEADERS,
    ...(asset.csp && { "content-security-policy": asset.csp }),
    "content-type": asset.contentType,
    "content-length": String(Buffer.byteLength(body)),
  });
  response.end(body);
}

function end(response: ServerResponse, status: number, body = ""): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
  response.end(body);
}

/**
 * Answers and closes the connection, whatever of the request is still to come: its body is
 * not waited for (Node would otherwise read it all, however slowly sent, to reuse the socket).
 */
function refuse(response: ServerResponse, status: number): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  response.end();
}

function sameSecret(sent: string | string[] | undefined, secret: string): boolean {
  if (typeof sent !== "string") return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

const tooLarge = Symbol("too large");

/** The body as JSON, `tooLarge`, or undefined when it is not JSON. */
async function readJson(request: IncomingMessage, most = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > most) return tooLarge;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
