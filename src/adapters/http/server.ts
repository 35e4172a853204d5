// The bot's one HTTP server, apart from the bot itself: Telegram's webhook POSTs, the health
// checks a load balancer or orchestrator asks, and the Prometheus metrics. It knows nothing of
// grammY: the webhook hands each update to a function and answers once it is taken.
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Log } from "../../domain/ports.js";

/** Larger bodies are no Telegram update. */
const MAX_BODY_BYTES = 1 << 20;

export type WebhookRejection = "secret" | "stopping" | "malformed";

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

/** A page a browser opens (Khalti's return_url): GET only, HTML back. */
interface PageRoute {
  path: string;
  render(query: URLSearchParams): Promise<{ status: number; html: string }>;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  webhook?: WebhookRoute | undefined;
  pages?: PageRoute[];
  /** Whether this instance should get traffic (Redis answers). */
  ready(): boolean;
  metrics: { contentType: string; render(): Promise<string> };
  onRejected(reason: WebhookRejection): void;
  log: Log;
}

export class HttpServer {
  private server: Server | undefined;
  private stopping = false;
  private readonly handling = new Set<Promise<void>>();

  constructor(private readonly options: HttpServerOptions) {}

  /** The port it listens on (the configured one, or the one the system chose for 0). */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? this.options.port;
  }

  async listen(): Promise<void> {
    const server = createServer((request, response) => {
      this.route(request, response).catch((error: unknown) => {
        this.options.log.error({ err: error }, "HTTP request failed");
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
    server.keepAliveTimeout = 65_000;
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
    while (this.handling.size > 0) await Promise.allSettled([...this.handling]);
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
    const path = new URL(request.url ?? "/", "http://bot").pathname;
    const webhook = this.options.webhook;
    if (webhook && path === webhook.path) {
      if (request.method !== "POST") return end(response, 405);
      return this.webhook(webhook, request, response);
    }
    if (request.method !== "GET" && request.method !== "HEAD") return end(response, 405);
    const page = this.options.pages?.find((candidate) => candidate.path === path);
    if (page) {
      const query = new URL(request.url ?? "/", "http://bot").searchParams;
      const { status, html } = await page.render(query);
      response.writeHead(status, { "content-type": "text/html; charset=utf-8" });
      response.end(html);
      return;
    }
    switch (path) {
      case "/healthz":
        return end(response, 200, "ok\n");
      case "/readyz": {
        const ready = !this.stopping && this.options.ready();
        return end(response, ready ? 200 : 503, ready ? "ready\n" : "not ready\n");
      }
      case "/metrics": {
        const body = await this.options.metrics.render();
        response.writeHead(200, { "content-type": this.options.metrics.contentType });
        response.end(body);
        return;
      }
      default:
        return end(response, 404);
    }
  }

  private async webhook(
    route: WebhookRoute,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (!sameSecret(request.headers["x-telegram-bot-api-secret-token"], route.secret)) {
      this.options.onRejected("secret");
      request.resume();
      return end(response, 401);
    }
    if (this.stopping) {
      this.options.onRejected("stopping");
      request.resume();
      return end(response, 503);
    }
    const update = await readJson(request);
    if (update === undefined) {
      this.options.onRejected("malformed");
      return end(response, 400);
    }
    let failed = false;
    const task = route
      .handle(update)
      .catch((error: unknown) => {
        failed = true;
        this.options.log.error({ err: error }, "webhook update failed");
      })
      .finally(() => this.handling.delete(task));
    this.handling.add(task);
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

function sameSecret(sent: string | string[] | undefined, secret: string): boolean {
  if (typeof sent !== "string") return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The body as JSON, or undefined when it is too large or not JSON. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
