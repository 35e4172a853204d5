// The bot's HTTP server, apart from the bot itself: Telegram's webhook POSTs, the health checks
// a load balancer or orchestrator asks, the pages a browser opens, and the Prometheus metrics
// (on a listener of their own, or behind a bearer token). It knows nothing of grammY: the
// webhook hands each update to a function and answers once it is taken. Whatever it refuses is
// answered at once and its connection closed: no body is read for a request turned away.
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Log } from "../../domain/ports.js";
import { TaskGroup } from "../../domain/task-group.js";
import { ClientLimit } from "./client-limit.js";

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

/** Pages are never cached, framed, sniffed or told where the buyer came from. */
const PAGE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

export interface HttpServerOptions {
  host: string;
  port: number;
  /** The request's headers must be in within this, the whole request within the next. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Connections beyond this many are closed as they come. */
  maxConnections: number;
  webhook?: WebhookRoute | undefined;
  pages?: PageRoute[];
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

  constructor(private readonly options: HttpServerOptions) {
    const perMinute = options.pagesPerClientPerMinute;
    this.pageLimit = perMinute === undefined ? undefined : new ClientLimit(perMinute);
  }

  /** The port it listens on (the configured one, or the one the system chose for 0). */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? this.options.port;
  }

  async listen(): Promise<void> {
    const { headersTimeoutMs, requestTimeoutMs } = this.options;
    const server = createServer(
      {
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        // Node looks for late requests this often (30 s unless told): a fraction of the limit.
        connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 4)),
        keepAliveTimeout: 65_000,
      },
      (request, response) => {
        this.route(request, response).catch((error: unknown) => {
          this.options.log.error({ err: error }, "HTTP request failed");
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
      },
    );
    server.maxConnections = this.options.maxConnections;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, this.options.host, resolve);
    });
    this.server = server;
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
    if (request.method !== "GET" && request.method !== "HEAD") return refuse(response, 405);
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
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return tooLarge;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
