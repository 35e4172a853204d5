// Failures of provider calls, typed by what the caller can do about them.
// Messages carry operation names, HTTP statuses and field paths only: never tokens or
// personal data, so they are safe to log.

export type ProviderOperation =
  | "get-customer-information"
  | "get-subscription-package"
  | "subscription-package-topup"
  | "txn-status";

export abstract class ProviderError extends Error {
  abstract readonly kind:
    | "unavailable"
    | "rejected"
    | "unauthorized"
    | "protocol"
    | "outcome-unknown";
  constructor(
    readonly operation: ProviderOperation,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation}: ${message}`, options);
    this.name = new.target.name;
  }
}

/**
 * Network error, timeout, HTTP 5xx, or any answer without the provider's envelope (a gateway's
 * page, a body that is not JSON): try again later.
 */
export class ProviderUnavailableError extends ProviderError {
  readonly kind = "unavailable";
}

/**
 * The provider answered `success: false`. `code` is the provider's, not interpreted here;
 * `retryAfter`: the answer carried a Retry-After header (come back later, not "no").
 */
export class ProviderRejectedError extends ProviderError {
  readonly kind = "rejected";
  constructor(
    operation: ProviderOperation,
    readonly code: string,
    readonly providerMessage: string | undefined,
    readonly httpStatus: number,
    readonly retryAfter = false,
  ) {
    super(operation, `rejected with code ${code} (HTTP ${httpStatus})`);
  }
}

/**
 * HTTP 401/403: the provider token is wrong or expired. An operator must act. `refused`: the
 * answer carried the provider's own envelope (`success: false`), so the provider itself turned
 * the call away and nothing happened; without it (a gateway's page) a sent call may still have
 * been executed. Status 0: not sent at all (top-ups are paused).
 */
export class ProviderUnauthorizedError extends ProviderError {
  readonly kind = "unauthorized";
  constructor(
    operation: ProviderOperation,
    readonly httpStatus: number,
    readonly refused = false,
  ) {
    super(
      operation,
      `not authorised (HTTP ${httpStatus}${refused ? ", the provider's own refusal" : ""}): check PROVIDER_TOKEN`,
    );
  }
}

/** The answer does not have the documented shape; `path` names the offending field. */
export class ProviderProtocolError extends ProviderError {
  readonly kind = "protocol";
  constructor(
    operation: ProviderOperation,
    readonly path: string,
    detail: string,
  ) {
    super(operation, `unexpected response at ${path}: ${detail}`);
  }
}

/**
 * A top-up request may or may not have been executed: anything but the provider's own
 * `success: false` after it was sent (timeout, reset, 5xx, a gateway's 4xx, our token refused
 * without the envelope, an unreadable body). Never retry it: resolve it with txn-status for the
 * same checkout id.
 */
export class TopupOutcomeUnknownError extends ProviderError {
  readonly kind = "outcome-unknown";
  constructor(
    readonly checkoutId: string,
    reason: string,
    cause?: unknown,
  ) {
    super("subscription-package-topup", `outcome unknown (${reason})`, { cause });
  }
}
