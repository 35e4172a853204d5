// The one place that decides what a provider's answer means for the bot. The spec documents
// no failure codes, so no code or message is interpreted here: a refusal of a read means the
// provider has no such thing; a refused token means our credentials; anything else means the
// provider could not be asked.
import type { Log } from "./ports.js";
import {
  ProviderError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  TopupOutcomeUnknownError,
} from "./provider-errors.js";

export type ReadFailure = "not-found" | "unauthorized" | "unavailable";

export type Answer<T> = { ok: true; value: T } | { ok: false; failure: ReadFailure };

function readFailure(error: unknown): ReadFailure {
  if (error instanceof ProviderRejectedError) return "not-found";
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
  /** The provider answered and refused: nothing happened. */
  | { kind: "refused"; code: string; message: string | undefined }
  | { kind: "unauthorized" }
  /** The request never left (connection refused): nothing happened. */
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
