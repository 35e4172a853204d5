// Public types of the Khalti sandbox, shared by its modules and re-exported from server.ts.

/** Every status the lookup API reports, spelt as Khalti spells them (spaces included). */
export const KHALTI_STATUSES = [
  "Initiated",
  "Pending",
  "Completed",
  "Expired",
  "User canceled",
  "Refunded",
  "Partially Refunded",
  /** Final: the payment did not go through (a bank declined it); nothing was taken. */
  "Failed",
] as const;
export type KhaltiStatus = (typeof KHALTI_STATUSES)[number];

export interface KhaltiSandboxOptions {
  /** The merchant's secret key: every API call must carry `Authorization: Key <secretKey>`. */
  secretKey: string;
  /** Lifetime of a payment link (`expires_in`); default 1800, Khalti's. */
  expiresInSeconds?: number;
  /** Default 0 (a free port). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** The sandbox clock (expiry, `expires_at`, the record); default real time. */
  now?: () => Date;
  /** Khalti's fee as a fraction of what the buyer paid, as lookup reports it; default 0.03. */
  feeRate?: number;
  /** Where the pages' "Back to Telegram" leads (the playground's chat); default none. */
  chatUrl?: string;
}

/** One payment as the sandbox sees it: more than any API answer shows. */
export interface KhaltiPayment {
  pidx: string;
  /** Never `Pending`: that is only ever a lookup answer (faults.lookupPending). */
  status: Exclude<KhaltiStatus, "Pending">;
  /** As initiated, in paisa. */
  amount: number;
  /** What the buyer paid (lookup's `total_amount`): `amount` unless pay({amount}) said otherwise. */
  totalAmount: number;
  purchaseOrderId: string;
  purchaseOrderName: string;
  returnUrl: string;
  websiteUrl: string;
  /** The initiate body exactly as received, to check what the client disclosed. */
  initiatedWith: Record<string, unknown>;
  /** Set once paid; it is also `tidx` and `txnId` in the redirect. */
  transactionId: string | null;
  /** In paisa; 0 until paid. */
  fee: number;
  /**
   * How the buyer paid: from their Khalti wallet, or from a bank (e-banking, mobile banking)
   * through their Khalti account; null until paid. A bank payment is refunded only with the
   * payer's `mobile` in the refund's body.
   */
  paidBy: "wallet" | "bank" | null;
  /** The payer's Khalti account (their mobile number), complete; null until paid. */
  payerMobile: string | null;
  /**
   * The mobile number the redirect to return_url carries: masked as Khalti shows it
   * (98XXXXX001), or complete when paid with `revealMobile`; null until paid.
   */
  mobile: string | null;
  /** Refunded so far, in paisa. */
  refundedAmount: number;
  refunded: boolean;
  /** Whether the buyer's browser was sent back to `return_url` (never after pay()/cancel()). */
  redirected: boolean;
  initiatedAt: Date;
  expiresAt: Date;
}

export type KhaltiEndpoint = "initiate" | "lookup" | "refund";

export interface KhaltiRequest {
  endpoint: KhaltiEndpoint;
  /** The parsed JSON body, or the raw text when it was not JSON (`""` for none). */
  body: unknown;
  /** Whether the Authorization header carried the secret key. */
  authorized: boolean;
  /** A lookup's pidx, when the body named one as a string. */
  pidx?: string;
  /** A refund's transaction id, from its path. */
  transactionId?: string;
  at: Date;
}

/** How the buyer pays: the handle's pay() and the payment page's Pay buttons. */
export interface PayOptions {
  /** What Khalti takes (`total_amount`), when not what was initiated (a wrong amount). */
  amount?: number;
  /** Default "wallet". */
  paidBy?: "wallet" | "bank";
  /** The payer's Khalti account; default 9800000001 (Khalti's test wallet). */
  mobile?: string;
  /** The redirect carries the mobile complete rather than masked. */
  revealMobile?: boolean;
}

/** How a failing lookup fails: an HTML 500 page, or the connection closed with no answer. */
export type LookupFailure = "http-500" | "drop";

export interface KhaltiFaults {
  /** Lookups of this pidx answer `Pending` (HTTP 200) until clear(); the payment is unchanged. */
  lookupPending(pidx: string): void;
  /** The next `times` lookups fail `how` (default `http-500`), whatever they ask. */
  lookupFails(times: number, how?: LookupFailure): void;
  /**
   * The next `times` refunds fail `how` (default an HTTP 500; "drop": the connection closed with
   * no answer). With `afterEffect` the refund is made all the same and only the answer is lost,
   * so a retry meets "already refunded".
   */
  refundFails(times: number, options?: { afterEffect?: boolean; how?: LookupFailure }): void;
  /** Ends every fault. */
  clear(): void;
}

interface KhaltiCalls {
  /** Every request received on an API path (refused ones too), in order. */
  readonly requests: readonly KhaltiRequest[];
  /** The body of every initiate request, as received (refused ones too). */
  initiated(): unknown[];
  /** Lookup requests received (failed and refused ones too), for one pidx or in all. */
  lookups(pidx?: string): number;
  /** Refund requests received (failed and refused ones too), for one transaction or in all. */
  refunds(transactionId?: string): number;
}

export interface KhaltiSandbox {
  /**
   * `http://<host>:<port>`: the API base (clients call `${url}/api/v2/epayment/initiate/`) and
   * the origin of the payment pages (`${url}/pay/<pidx>`).
   */
  readonly url: string;
  /** Snapshots of every payment, in the order initiated, expiry applied as of now. */
  payments(): KhaltiPayment[];
  /** A snapshot of one payment; undefined when the pidx is unknown. */
  payment(pidx: string): KhaltiPayment | undefined;
  /**
   * Completes an Initiated payment without any redirect: a browser that never returns.
   * `amount` makes `total_amount` differ from what was initiated (a wrong amount); `paidBy`
   * "bank" makes it a bank payment (refunded only with the payer's mobile).
   * Throws for an unknown pidx or one no longer Initiated.
   */
  pay(pidx: string, options?: PayOptions): KhaltiPayment;
  /** The buyer cancels, without any redirect. Throws unless Initiated. */
  cancel(pidx: string): KhaltiPayment;
  /** The link expires now. Throws unless Initiated. */
  expire(pidx: string): KhaltiPayment;
  /** The payment fails (a bank declined it): `Failed`, nothing taken. Throws unless Initiated. */
  fail(pidx: string): KhaltiPayment;
  /**
   * The merchant refunds from Khalti's dashboard, outside the API (no mobile needed): `amount`
   * paisa (Partially Refunded), or what is left (Refunded). Throws unless paid and not refunded.
   */
  refundOutside(pidx: string, options?: { amount?: number }): KhaltiPayment;
  readonly faults: KhaltiFaults;
  readonly calls: KhaltiCalls;
  /** Forgets every payment, request and fault. */
  reset(): void;
  /** Closes promptly, destroying open sockets. */
  close(): Promise<void>;
}
