import type { Agent, request } from "undici";
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

/** No answer in time: the request was sent. */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/** Errors raised before any byte of the request could reach the provider. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

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

/**
 * One POST to the provider and the classification of its answer into the typed errors.
 * Knows HTTP and the common envelope (`success`, `code`, `body`), nothing of the versions.
 * The timeout is undici's, counted from when the request is on a connection: time spent
 * waiting for a free connection of the pool is not the provider's.
 */
export class ProviderTransport {
  /** undici, loaded with the first call: the bot starts faster and idles smaller without it. */
  private undici: Promise<{ agent: Agent; request: typeof request }> | undefined;

  constructor(private readonly options: TransportOptions) {}

  private connect() {
    this.undici ??= import("undici").then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connections: this.options.maxConnections ?? 16,
        keepAliveTimeout: 10_000,
        connectTimeout: this.options.timeoutMs,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      }),
    }));
    return this.undici;
  }

  async post(
    operation: ProviderOperation,
    payload: object,
    signal?: AbortSignal,
  ): Promise<Envelope> {
    const url = `${this.options.baseUrl}/api/third-party/${this.options.version}/${operation}`;
    const { agent, request } = await this.connect();
    let status: number;
    let text: string;
    try {
      const response = await request(url, {
        method: "POST",
        dispatcher: agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${this.options.token}`,
        },
        body: JSON.stringify(payload),
        signal,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const code = (error as { code?: string }).code ?? "";
      const timedOut = TIMEOUT_CODES.has(code);
      const message = timedOut
        ? `no answer within ${this.options.timeoutMs} ms`
        : `network error ${code || (error as Error).name}`;
      throw new TransportFailure(operation, message, timedOut || !NOT_SENT_CODES.has(code), error);
    }
    return classify(operation, status, text);
  }

  async close(): Promise<void> {
    if (this.undici) await (await this.undici).agent.close();
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
