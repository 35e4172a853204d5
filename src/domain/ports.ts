// What the domain needs from the world outside it, in its own words. Adapters implement these;
// the stores of single features are declared beside their modules (journal.ts, broadcast.ts...).
import type { Connection, CustomerInfo, PackageOffer, TopupRequest, Transaction } from "./model.js";

/**
 * The provider's four operations, normalised into the domain model whatever the API version.
 * Failures are the errors of provider-errors.ts; provider-answers.ts says what they mean.
 */
export interface ProviderPort {
  getCustomer(code: string, signal?: AbortSignal): Promise<CustomerInfo>;
  getPackages(
    cuid: string,
    connection: Pick<Connection, "service" | "id">,
    signal?: AbortSignal,
  ): Promise<PackageOffer>;
  /** Never retried. Throws TopupOutcomeUnknownError when it may have happened. */
  topup(request: TopupRequest, signal?: AbortSignal): Promise<Transaction>;
  txnStatus(checkoutId: string, signal?: AbortSignal): Promise<Transaction>;
}

/** Structured log lines. Fields never carry secrets or personal data. */
export interface Log {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Milliseconds since the epoch. */
export type Clock = () => number;

/** Exclusive right to some work, lost by itself shortly after its holder dies. */
export interface Lease {
  release(): Promise<void>;
}
