// Public types of the eSewa sandbox, shared by its modules and re-exported from server.ts.

/** Every status the status API reports, spelt as eSewa spells them. */
export const ESEWA_STATUSES = [
  "COMPLETE",
  "PENDING",
  "AMBIGUOUS",
  "NOT_FOUND",
  "CANCELED",
  "FULL_REFUND",
  "PARTIAL_REFUND",
] as const;
export type EsewaStatus = (typeof ESEWA_STATUSES)[number];

/**
 * A payment's own state: INITIATED from the form until the buyer acts (the status API reads it
 * NOT_FOUND, as eSewa reads a payment not made), then whatever eSewa would report.
 */
export type EsewaPaymentStatus = "INITIATED" | EsewaStatus;

/** eSewa's published test merchant: product code and secret key. */
export const TEST_PRODUCT_CODE = "EPAYTEST";
export const TEST_SECRET_KEY = "8gBm/:&EnhH.1/q";

export interface EsewaSandboxOptions {
  /** The merchant's secret key that signs forms and redirects; default eSewa's test key. */
  secretKey?: string;
  /** The one merchant the sandbox knows; default `EPAYTEST`. */
  productCode?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** The sandbox clock (the record, sessions); default real time. */
  now?: () => Date;
  /**
   * How long a posted form stays payable, from its last post, before its session expires (the
   * payment page says so, Pay is refused, the status check reads NOT_FOUND). Default none:
   * eSewa publishes no expiry, so a form posted stays payable however late, as the bot must
   * assume.
   */
  sessionSeconds?: number;
  /**
   * How `total_amount` is written in the redirect's data and the status answers: a JSON number
   * as eSewa writes it (`1000.0`, the default) or a string (`"1000.0"`). Either way its text is
   * Java's (`1000.0`, `100.5`), so a client must use it exactly as received.
   */
  amountsAs?: "number" | "string";
  /**
   * Whether the redirects to failure_url (Cancel, Leave pending) carry a signed `data` too, its
   * status CANCELED or PENDING. Default false: eSewa documents none, so failure_url as given.
   */
  failureData?: boolean;
  /** Where the pages' "Back to Telegram" leads (the playground's chat); default none. */
  chatUrl?: string;
}

/** One payment as the sandbox sees it: more than any answer shows. */
export interface EsewaPayment {
  transactionUuid: string;
  productCode: string;
  status: EsewaPaymentStatus;
  /** The form's amounts, as posted (rupees as text). */
  amount: string;
  taxAmount: string;
  productServiceCharge: string;
  productDeliveryCharge: string;
  totalAmount: string;
  /** total_amount in paisa: what the status API compares the asked total_amount with. */
  totalPaisa: number;
  successUrl: string;
  failureUrl: string;
  /** The last form posted for it, exactly as received, to check what the client disclosed. */
  submittedWith: Record<string, string>;
  /**
   * eSewa's reference: the redirect's transaction_code and the status API's ref_id. Set once
   * the buyer pays or the payment is left pending; null before.
   */
  refId: string | null;
  /**
   * Where eSewa sends (or would have sent) the buyer's browser after the last thing the buyer
   * did: success_url with data, or failure_url. Set by pay(), cancel() and leavePending() too, so
   * a test can play a browser that comes back late; null while INITIATED.
   */
  redirectUrl: string | null;
  /** Whether the browser was sent there (the page's buttons); never after pay() and the like. */
  redirected: boolean;
  submittedAt: Date;
  /** When the status last changed. */
  updatedAt: Date;
}

type EsewaEndpoint = "form" | "status";

export interface EsewaRequest {
  endpoint: EsewaEndpoint;
  /** The form's fields, or the status check's query, as received. */
  fields: Record<string, string>;
  /** Its transaction_uuid, when it named one. */
  transactionUuid?: string;
  /** A form's: whether its signature verified with the sandbox's key. */
  signatureValid?: boolean;
  at: Date;
}

/**
 * How a failing status check fails: `http-500` an HTML error page; `http-503` a 503 with
 * `{"code":0,"error_message":"Service is currently unavailable"}`; `unavailable` the same body
 * with HTTP 200; `unavailable-status` HTTP 200 with the usual body, its status "Service is
 * currently unavailable" (as eSewa's table lists it); `drop` the connection closed unanswered.
 */
export const STATUS_FAILURES = [
  "http-500",
  "http-503",
  "unavailable",
  "unavailable-status",
  "drop",
] as const;
export type StatusFailure = (typeof STATUS_FAILURES)[number];

export interface EsewaFaults {
  /** Status checks of this transaction_uuid answer AMBIGUOUS until clear(); nothing changes. */
  statusAmbiguous(transactionUuid: string): void;
  /**
   * Status checks of this transaction_uuid answer about its payment whatever total_amount they
   * ask, stating the payment's own (an eSewa matching the uuid alone: COMPLETE for another
   * amount), until clear().
   */
  statusAnyAmount(transactionUuid: string): void;
  /** The next `times` status checks fail `how` (default `http-500`), whatever they ask. */
  statusFails(times: number, how?: StatusFailure): void;
  /** Status checks answer after `ms`: the next `times` of them, or every one until clear(). */
  statusSlow(ms: number, times?: number): void;
  /** Status checks wait, unanswered, until releaseStatus() or clear(). */
  holdStatus(): void;
  /** Answers every held status check, and holds no more. */
  releaseStatus(): void;
  /** Status checks waiting in holdStatus() now. */
  readonly heldStatusChecks: number;
  /** The next `times` (default 1) success redirects carry data whose signature is wrong. */
  forgeRedirect(times?: number): void;
  /** Ends every fault, releasing held checks. */
  clear(): void;
}

interface EsewaCalls {
  /** Every request received on the form and status paths (refused ones too), in order. */
  readonly requests: readonly EsewaRequest[];
  /** The fields of every form posted, as received (refused ones too). */
  forms(): Record<string, string>[];
  /** Status checks received (failed, held and refused ones too), for one uuid or in all. */
  statusChecks(transactionUuid?: string): number;
}

export interface EsewaSandbox {
  /** `http://<host>:<port>`: the origin of the form, the status API and the payment pages. */
  readonly url: string;
  /** Where the buyer's browser posts the form: `${url}/api/epay/main/v2/form`. */
  readonly formUrl: string;
  /** The status check: `${url}/api/epay/transaction/status/`. */
  readonly statusUrl: string;
  readonly productCode: string;
  /** Snapshots of every payment, in the order the forms came. */
  payments(): EsewaPayment[];
  /** A snapshot of one payment; undefined when the transaction_uuid is unknown. */
  payment(transactionUuid: string): EsewaPayment | undefined;
  /**
   * The buyer pays (COMPLETE) without any redirect: a browser that never returns. From
   * INITIATED, PENDING or AMBIGUOUS; throws for an unknown uuid or any other state.
   */
  pay(transactionUuid: string): EsewaPayment;
  /** The buyer cancels (CANCELED), without any redirect. From INITIATED or PENDING. */
  cancel(transactionUuid: string): EsewaPayment;
  /** The payment is left PENDING, without any redirect. From INITIATED. */
  leavePending(transactionUuid: string): EsewaPayment;
  /**
   * eSewa's back office: the payment reads `status` from now on, whatever it was (a refund made
   * through the merchant portal is FULL_REFUND or PARTIAL_REFUND). Throws for an unknown uuid.
   */
  setStatus(transactionUuid: string, status: EsewaStatus): EsewaPayment;
  readonly faults: EsewaFaults;
  readonly calls: EsewaCalls;
  /** Forgets every payment, request and fault. */
  reset(): void;
  /** Closes promptly, destroying open sockets. */
  close(): Promise<void>;
}
