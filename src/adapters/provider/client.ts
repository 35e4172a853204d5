import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import type {
  Connection,
  CustomerInfo,
  PackageOffer,
  TopupRequest,
  Transaction,
} from "../../domain/model.js";
import type { Log, ProviderPort } from "../../domain/ports.js";
import {
  type ProviderOperation,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
  TopupOutcomeUnknownError,
} from "../../domain/provider-errors.js";
import { ProviderTransport, TransportFailure } from "./transport.js";
import {
  codecFor,
  type ProviderApiVersion,
  UDF_MAX_LENGTH,
  type VersionCodec,
} from "./versions.js";
import { parseBody, transactionBodySchema } from "./wire.js";

export interface ProviderClientOptions {
  baseUrl: string;
  version: ProviderApiVersion;
  token: string;
  timeoutMs: number;
  /** Extra attempts for read calls that found the provider unavailable. */
  readRetries: number;
  timeZone: string;
  logger: Log;
  retryBaseMs?: number;
  retryMaxMs?: number;
  maxConnections?: number;
  /** How often at most a refused provider token is logged at error level. */
  unauthorizedLogIntervalMs?: number;
  now?: () => Date;
}

/** The provider's HTTP API as the domain's ProviderPort: retries for reads, never for top-ups. */
export class ProviderClient implements ProviderPort {
  private readonly transport: ProviderTransport;
  private readonly codec: VersionCodec;
  private readonly transaction: z.ZodType<Transaction>;
  private readonly now: () => Date;
  private lastUnauthorizedLog = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: ProviderClientOptions) {
    this.transport = new ProviderTransport(options);
    this.codec = codecFor(options.version, options.timeZone);
    this.transaction = transactionBodySchema(options.timeZone);
    this.now = options.now ?? (() => new Date());
  }

  getCustomer(code: string, signal?: AbortSignal): Promise<CustomerInfo> {
    return this.read("get-customer-information", { code }, this.codec.customerInfo, signal);
  }

  async getPackages(
    cuid: string,
    connection: Pick<Connection, "service" | "id">,
    signal?: AbortSignal,
  ): Promise<PackageOffer> {
    const payload = { cuid, service: connection.service, reqId: connection.id };
    const schema = this.codec.packageBody(connection.service, connection.id);
    const parsed = await this.read("get-subscription-package", payload, schema, signal);
    if (parsed.unsellable > 0) {
      this.options.logger.warn(
        { service: connection.service, count: parsed.unsellable },
        "bouquets without a code, a name or a positive price are not offered",
      );
    }
    return {
      checkout: { id: parsed.checkoutId, issuedAt: this.now() },
      customer: parsed.customer ?? { cuid, firstName: "", lastName: "", status: "unknown" },
      connection: parsed.connection,
      subscriptions: parsed.subscriptions,
      bouquets: parsed.bouquets,
    };
  }

  txnStatus(checkoutId: string, signal?: AbortSignal): Promise<Transaction> {
    return this.read("txn-status", { checkoutId }, this.transaction, signal);
  }

  async topup(request: TopupRequest, signal?: AbortSignal): Promise<Transaction> {
    for (const reference of [request.reference, request.reference2]) {
      if (reference !== undefined && reference.length > UDF_MAX_LENGTH) {
        throw new RangeError(`top-up reference longer than ${UDF_MAX_LENGTH} characters`);
      }
    }
    const operation = "subscription-package-topup";
    const started = performance.now();
    try {
      const { body } = await this.transport.post(
        operation,
        this.codec.topupPayload(request),
        signal,
      );
      const result = parseBody(operation, this.transaction, body);
      this.logCall(operation, "ok", started);
      return result;
    } catch (error) {
      this.logCall(operation, error, started);
      this.noteUnauthorized(error);
      // Only the provider's own `success: false` says it did not happen (also when it refuses
      // our token: a 401 or 403 with its envelope), and only a request that never left was not
      // sent. Anything else (a bare 401 included: a gateway may say so after it forwarded the
      // call) may have been executed: txn-status will tell.
      if (error instanceof ProviderRejectedError) throw error;
      if (error instanceof ProviderUnauthorizedError && error.refused) throw error;
      if (error instanceof TransportFailure && !error.sent) throw error;
      const reason =
        signal?.aborted && error === signal.reason
          ? "cancelled by the caller"
          : error instanceof Error
            ? error.message
            : String(error);
      throw new TopupOutcomeUnknownError(request.checkoutId, reason, error);
    }
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async read<T>(
    operation: ProviderOperation,
    payload: object,
    schema: z.ZodType<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      try {
        const { body } = await this.transport.post(operation, payload, signal);
        const result = parseBody(operation, schema, body);
        this.logCall(operation, "ok", started, attempt);
        return result;
      } catch (error) {
        this.logCall(operation, error, started, attempt);
        this.noteUnauthorized(error);
        const retryable = error instanceof ProviderUnavailableError && !signal?.aborted;
        if (!retryable || attempt >= this.options.readRetries) throw error;
        await sleep(this.backoff(attempt), undefined, { signal });
      }
    }
  }

  /** Exponential backoff with full jitter, so many users retrying do not stampede. */
  private backoff(attempt: number): number {
    const base = this.options.retryBaseMs ?? 250;
    const cap = this.options.retryMaxMs ?? 4_000;
    return Math.random() * Math.min(cap, base * 2 ** attempt);
  }

  private logCall(operation: string, outcome: unknown, started: number, attempt = 0): void {
    const ms = Math.round(performance.now() - started);
    const result = outcome === "ok" ? "ok" : ((outcome as { kind?: string }).kind ?? "error");
    this.options.logger.debug({ operation, result, ms, attempt }, "provider call");
  }

  private noteUnauthorized(error: unknown): void {
    if (!(error instanceof ProviderUnauthorizedError)) return;
    const now = Date.now();
    if (now - this.lastUnauthorizedLog < (this.options.unauthorizedLogIntervalMs ?? 60_000)) return;
    this.lastUnauthorizedLog = now;
    this.options.logger.error(
      { operation: error.operation, status: error.httpStatus },
      "the provider refused our token: check PROVIDER_TOKEN (logged at most once a minute)",
    );
  }
}
