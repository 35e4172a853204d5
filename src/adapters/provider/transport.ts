import { Agent, type IncomingMessage, type RequestOptions, request } from "node:http";
import {
  type ProviderOperation,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from "../../domain/provider-errors.js";

export interface TransportOptions {
  baseUrl: string;
  version: string;
  token: string;
  timeoutMs: number;
  /** Upper bound of open connections to the provider (keep-alive pool). */
  maxConnections?: number;
}

export interface Envelope {
  body: unknown;
}

/** Our own codes for the three ways the provider can be too slow. */
const CONNECT_TIMEOUT = "PROVIDER_CONNECT_TIMEOUT";
const HEADERS_TIMEOUT = "PROVIDER_HEADERS_TIMEOUT";
const BODY_TIMEOUT = "PROVIDER_BODY_TIMEOUT";

/** No answer in time: the request was sent. */
const TIMEOUT_CODES = new Set([HEADERS_TIMEOUT, BODY_TIMEOUT]);

/** Errors raised before any byte of the request could reach the provider. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  CONNECT_TIMEOUT,
]);

/** An idle pooled connection is closed before a provider's usual 5 s keep-alive ends. */
const IDLE_CONNECTION_MS = 4_000;

/** Thrown with `sent: false` when the request certainly did not reach the provider. */
export class TransportFailure extends ProviderUnavailableError {
  constructor(
    operation: ProviderOperation,
    message: string,
    readonly sent: boolean,
    cause?: unknown,
  ) {
    super(operation, message, { cause });
  }
}

type Requester = (url: URL, options: RequestOptions) => ReturnType<typeof request>;

/**
 * One POST to the provider and the classification of its answer into the typed errors.
 * Knows HTTP and the common envelope (`success`, `code`, `body`), nothing of the versions.
 *
 * Node's own HTTP client, with a keep-alive pool: grammY and our HTTP server load it anyway,
 * where undici would add 19 MB to a bot that idles in 80 (bench/RESULTS.md). The timeout
 * starts when the request has its connection: waiting for a free one is not the provider's
 * time. It then bounds connecting, the wait for the headers, and each pause in the body.
 */
export class ProviderTransport {
  private readonly url: URL;
  private client: Promise<{ agent: Agent; send: Requester }> | undefined;

  constructor(private readonly options: TransportOptions) {
    this.url = new URL(options.baseUrl);
  }

  /** node:https (and TLS) only for an https provider. */
  private connect() {
    this.client ??= (
      this.url.protocol === "https:"
        ? import("node:https").then((https) => ({ Agent: https.Agent, send: https.request }))
        : Promise.resolve({ Agent, send: request })
    ).then(({ Agent: PoolAgent, send }) => ({
      send: send as Requester,
      agent: new PoolAgent({
        keepAlive: true,
        maxSockets: this.options.maxConnections ?? 16,
        timeout: IDLE_CONNECTION_MS,
      }),
    }));
    return this.client;
  }

  async post(
    operation: ProviderOperation,
    payload: object,
    signal?: AbortSignal,
  ): Promise<Envelope> {
    const url = new URL(
      `${this.url.pathname.replace(/\/$/, "")}/api/third-party/${this.options.version}/${operation}`,
      this.url,
    );
    let answer: { status: number; text: string };
    try {
      answer = await this.send(url, JSON.stringify(payload), signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const code = (error as { code?: string }).code ?? "";
      const timedOut = TIMEOUT_CODES.has(code);
      const message = timedOut
        ? `no answer within ${this.options.timeoutMs} ms`
        : `network error ${code || (error as Error).name}`;
      throw new TransportFailure(operation, message, timedOut || !NOT_SENT_CODES.has(code), error);
    }
    return classify(operation, answer.status, answer.text);
  }

  private async send(url: URL, body: string, signal?: AbortSignal) {
    const { agent, send } = await this.connect();
    const timeoutMs = this.options.timeoutMs;
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = send(url, {
        method: "POST",
        agent,
        signal,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          accept: "application/json",
          authorization: `Bearer ${this.options.token}`,
        },
      });
      let timer: NodeJS.Timeout | undefined;
      const within = (code: string) => {
        clearTimeout(timer);
        timer = setTimeout(
          () => outgoing.destroy(Object.assign(new Error(code), { code })),
          timeoutMs,
        );
      };
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      outgoing.once("socket", (socket) => {
        if (!socket.connecting) return within(HEADERS_TIMEOUT);
        within(CONNECT_TIMEOUT);
        const ready = "encrypted" in socket ? "secureConnect" : "connect";
        socket.once(ready, () => within(HEADERS_TIMEOUT));
      });
      outgoing.once("response", (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        within(BODY_TIMEOUT);
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          within(BODY_TIMEOUT);
        });
        response.once("end", () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() });
        });
        response.once("error", fail);
      });
      outgoing.once("error", fail);
      outgoing.end(body);
    });
  }

  async close(): Promise<void> {
    if (this.client) (await this.client).agent.destroy();
  }
}

/**
 * 401/403: our token. 5xx: unavailable. Any other 4xx without the envelope is a refusal of a
 * top-up (it did not happen) but says nothing about a read (a gateway's page: unavailable).
 */
function classify(operation: ProviderOperation, status: number, text: string): Envelope {
  if (status === 401 || status === 403) throw new ProviderUnauthorizedError(operation, status);
  if (status >= 500) throw new ProviderUnavailableError(operation, `HTTP ${status}`);
  const envelope = jsonObject(text);
  if (typeof envelope?.success !== "boolean") {
    if (status >= 400 && operation === "subscription-package-topup") {
      throw new ProviderRejectedError(operation, `HTTP${status}`, undefined, status);
    }
    if (status >= 400) throw new ProviderUnavailableError(operation, `HTTP ${status}`);
    if (!envelope) {
      throw new ProviderUnavailableError(operation, `HTTP ${status} with a body that is not JSON`);
    }
    throw new ProviderProtocolError(operation, "success", "expected boolean");
  }
  if (!envelope.success) {
    const code =
      typeof envelope.code === "string" && envelope.code !== "" ? envelope.code : `HTTP${status}`;
    const message = typeof envelope.message === "string" ? envelope.message : undefined;
    throw new ProviderRejectedError(operation, code, message, status);
  }
  return { body: envelope.body };
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const json: unknown = JSON.parse(text);
    return typeof json === "object" && json !== null && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
