// The one place that decides what a provider's answer means for the bot. The spec documents
// no failure codes, so no code or message is interpreted here, and only the provider's own
// envelope (`success: false`) is a refusal (a gateway's 4xx page is not: transport.ts): a
// refusal of a read means the provider has no such thing (txn-status's only under 200 or 404
// without Retry-After: `saysNoSuchTransaction`), a refusal of a top-up means it did
// not happen, a refused token means our credentials, anything else means the provider could
// not be asked. Only the documented transaction status is read, leniently.
import type { Transaction } from "./model.js";
import type { Log } from "./ports.js";
import {
  ProviderError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  TopupOutcomeUnknownError,
} from "./provider-errors.js";

export type ReadFailure = "not-found" | "unauthorized" | "unavailable";

export type Answer<T> = { ok: true; value: T } | { ok: false; failure: ReadFailure };

/**
 * txn-status's "no such transaction" lets a paid top-up be called "not charged" and its money
 * refunded, so it is believed only as the provider says "no" for good: its envelope under HTTP
 * 200 or 404, without Retry-After. Its envelope under any other status (a 429, a 409, a 400 a
 * gateway may have forwarded or made) or with Retry-After ("come back later") says nothing yet.
 */
function saysNoSuchTransaction(error: ProviderRejectedError): boolean {
  return (error.httpStatus === 200 || error.httpStatus === 404) && !error.retryAfter;
}

function readFailure(error: unknown): ReadFailure {
  if (error instanceof ProviderRejectedError) {
    if (error.operation === "txn-status" && !saysNoSuchTransaction(error)) return "unavailable";
    return "not-found";
  }
  if (error instanceof ProviderUnauthorizedError) return "unauthorized";
  return "unavailable";
}

/**
 * Runs one provider read and classifies its failure. "Not found" is an answer, not a fault;
 * the other failures are logged (the provider's own errors carry no personal data).
 */
export async function ask<T>(read: () => Promise<T>, log: Log, what: string): Promise<Answer<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    const failure = readFailure(error);
    if (failure !== "not-found") log.warn({ err: error, failure }, `${what} failed`);
    return { ok: false, failure };
  }
}

/** What a failed top-up call means for the money. */
export type TopupFailure =
  /** The provider's own envelope refused it: nothing happened. */
  | { kind: "refused"; code: string; message: string | undefined }
  /**
   * Our token is refused and top-ups pause: nothing was sent, or the provider's own envelope
   * refused it (a bare 401 or 403 after sending is unknown: client.ts).
   */
  | { kind: "unauthorized" }
  /** The request never left (connection refused, circuit open): nothing happened. */
  | { kind: "not-sent" }
  /** It may have happened: only txn-status can tell. */
  | { kind: "unknown" };

export function topupFailure(error: unknown): TopupFailure {
  if (error instanceof ProviderRejectedError) {
    return { kind: "refused", code: error.code, message: error.providerMessage };
  }
  if (error instanceof ProviderUnauthorizedError) return { kind: "unauthorized" };
  if (error instanceof ProviderError && !(error instanceof TopupOutcomeUnknownError)) {
    return { kind: "not-sent" };
  }
  return { kind: "unknown" };
}

/** What a transaction the provider reports says about the money. */
export type TransactionState =
  | { state: "charged"; transaction: Transaction }
  /** The provider recorded the attempt as failed: nothing was charged. */
  | { state: "failed" }
  /** Not final yet: ask again later. */
  | { state: "pending" };

const FAILED = /fail|declin|reject|cancel|revers|refund|void|error/i;
const PENDING = /pend|process|progress|initiat|queue|wait/i;

/**
 * The spec shows only `success`; a transaction without a status, or with any status that
 * says neither failure nor "not yet", is taken as charged: telling "nothing was charged" for
 * money that was taken would have the user pay twice.
 */
export function transactionState(transaction: Transaction): TransactionState {
  const status = transaction.status ?? "";
  if (FAILED.test(status)) return { state: "failed" };
  if (PENDING.test(status)) return { state: "pending" };
  return { state: "charged", transaction };
}
