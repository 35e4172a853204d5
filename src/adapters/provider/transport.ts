import {
  type ProviderOperation,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from "../../domain/provider-errors.js";
import { type HttpPool, httpPool } from "../http-client.js";

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

/** undici's: connecting took longer than the timeout (logged under our own name). */
const CONNECT_TIMEOUT = "UND_ERR_CONNECT_TIMEOUT";

/** Errors raised before any byte of the request could reach the provider. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  CONNECT_TIMEOUT,
]);

/** No answer in time: the request was sent. */
const NO_ANSWER_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

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

/**
 * One POST to the provider and the classification of its answer into the typed errors.
 * Knows HTTP and the common envelope (`success`, `code`, `body`), nothing of the versions.
 *
 * A keep-alive pool (undici's). The timeout bounds connecting, the wait for the headers once
 * the request is written, and each pause in the body: waiting for a free connection is not
 * the provider's time.
 */
export class ProviderTransport {
  private readonly basePath: string;
  private readonly pool: HttpPool;

  constructor(private readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/$/, "");
    this.pool = httpPool(url.origin, {
      connections: options.maxConnections ?? 16,
      keepAliveTimeout: IDLE_CONNECTION_MS,
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async post(
    operation: ProviderOperation,
    payload: object,
    signal?: AbortSignal,
  ): Promise<Envelope> {
    let answer: { status: number; text: string; retryAfter: boolean };
    try {
      const response = await this.pool.request({
        method: "POST",
        path: `${this.basePath}/api/third-party/${this.options.version}/${operation}`,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${this.options.token}`,
        },
        body: JSON.stringify(payload),
        signal,
      });
      answer = {
        status: response.statusCode,
        text: await response.body.text(),
        retryAfter: response.headers["retry-after"] !== undefined,
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const code = (error as { code?: string }).code ?? "";
      const timedOut = NO_ANSWER_CODES.has(code);
      const message = timedOut
        ? `no answer within ${this.options.timeoutMs} ms`
        : `network error ${code === CONNECT_TIMEOUT ? "PROVIDER_CONNECT_TIMEOUT" : code || (error as Error).name}`;
      throw new TransportFailure(operation, message, timedOut || !NOT_SENT_CODES.has(code), error);
    }
    return classify(operation, answer);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * Only the provider's own envelope speaks for the provider. 401/403: our token, refused by the
 * provider itself when the envelope says `success: false`. 5xx, or any other answer without the
 * envelope (a gateway's 404 page, a proxy's 408, 409 or 429, a body that is not JSON):
 * unavailable, because a gateway can answer so after it forwarded the call. A refusal keeps its
 * status and whether it said Retry-After: provider-answers.ts decides what a refused read means.
 */
function classify(
  operation: ProviderOperation,
  { status, text, retryAfter }: { status: number; text: string; retryAfter: boolean },
): Envelope {
  const envelope = jsonObject(text);
  if (status === 401 || status === 403) {
    throw new ProviderUnauthorizedError(operation, status, envelope?.success === false);
  }
  if (status >= 500) throw new ProviderUnavailableError(operation, `HTTP ${status}`);
  if (typeof envelope?.success !== "boolean") {
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
    throw new ProviderRejectedError(operation, code, message, status, retryAfter);
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
