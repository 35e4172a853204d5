// eSewa ePay v2's status check: `GET <status URL>?product_code=&total_amount=&transaction_uuid=`
// answers `{product_code, transaction_uuid, total_amount, status, ref_id}`. It is what a payment
// is believed on: COMPLETE for the same payment and the same amount (compared as amounts:
// `1000.0` is `1000`). Its status is read from eSewa's JSON on a 2xx or a 4xx; anything else (a
// 5xx, a page that is not JSON, a status it does not publish, "Service is currently
// unavailable", no answer in time) is unknown, to be asked again, and never read as a refusal.
// The call goes through the product's HTTP client, as Khalti's does. Nothing is logged, and no
// result carries a key, a query or a message of eSewa's.

import { parseAmount, sameAmount } from "../../../domain/money.js";
import { type HttpPool, httpPool } from "../../http-client.js";
import { esewaFields } from "./esewa-json.js";

export interface EsewaStatusOptions {
  /** eSewa's status URL (`…/api/epay/transaction/status/`); its path is kept as given. */
  statusUrl: string;
  productCode: string;
  /** For connecting, for the answer's headers and between pieces of its body. */
  timeoutMs: number;
}

/** The payment asked about: exactly what its form posted. */
export interface EsewaPaymentRef {
  transactionUuid: string;
  /** Rupees as the form's total_amount (e.g. "700"). */
  totalAmount: string;
}

/** Why a status is unknown, for a metric or a log line (never eSewa's own wording). */
export type EsewaUnknownReason =
  /** No connection, or it broke. */
  | "unreachable"
  /** No answer in time. */
  | "timeout"
  /** A 5xx (or another status that carries no answer). */
  | "server-error"
  /** Not a JSON object with a status: a proxy's page, "Service is currently unavailable". */
  | "unreadable"
  /** A status eSewa does not publish. */
  | "unexpected-status"
  /** The answer is about another transaction_uuid or product_code. */
  | "other-payment"
  /** COMPLETE, but for a total_amount that cannot be read. */
  | "other-amount";

export type EsewaStatusResult =
  /** COMPLETE for this payment and this amount. `refId` is eSewa's reference. */
  | { state: "paid"; refId: string | null }
  /**
   * COMPLETE for this transaction_uuid, but for another total_amount than asked (as eSewa
   * wrote it): not this payment as it was asked, a person's to check.
   */
  | { state: "paid-other-amount"; refId: string | null; totalAmount: string }
  /** PENDING, or AMBIGUOUS (eSewa's "halt state"): hold, and ask again. */
  | { state: "pending"; status: "PENDING" | "AMBIGUOUS" }
  /** NOT_FOUND: not paid (yet), or the session expired. */
  | { state: "not-found" }
  | { state: "canceled" }
  /** FULL_REFUND: the money went back, outside the bot. */
  | { state: "refunded"; refId: string | null }
  /** PARTIAL_REFUND. */
  | { state: "partially-refunded"; refId: string | null }
  /** Nothing can be concluded: ask again later. */
  | { state: "unknown"; reason: EsewaUnknownReason };

const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

export class EsewaStatusClient {
  private readonly pool: HttpPool;
  private readonly url: URL;

  constructor(private readonly options: EsewaStatusOptions) {
    this.url = new URL(options.statusUrl);
    this.pool = httpPool(this.url.origin, {
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  /** What eSewa says of the payment; never throws for anything eSewa or the network does. */
  async check(payment: EsewaPaymentRef): Promise<EsewaStatusResult> {
    const url = new URL(this.url);
    url.searchParams.set("product_code", this.options.productCode);
    url.searchParams.set("total_amount", payment.totalAmount);
    url.searchParams.set("transaction_uuid", payment.transactionUuid);
    let status: number;
    let text: string;
    try {
      const response = await this.pool.request({
        method: "GET",
        path: `${url.pathname}${url.search}`,
        // A GET: a cache on the way must not answer an earlier NOT_FOUND for a payment since made.
        headers: { accept: "application/json", "cache-control": "no-cache", pragma: "no-cache" },
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      return unknown(
        typeof code === "string" && TIMEOUT_CODES.has(code) ? "timeout" : "unreachable",
      );
    }
    if (status < 200 || status >= 500 || (status >= 300 && status < 400)) {
      return unknown("server-error");
    }
    return this.read(esewaFields(text), payment);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private read(
    body: Record<string, string> | undefined,
    payment: EsewaPaymentRef,
  ): EsewaStatusResult {
    const state = body?.status;
    if (!body || state === undefined) return unknown("unreadable");
    // Another payment's answer says nothing about this one.
    const uuid = body.transaction_uuid;
    const product = body.product_code;
    if (
      (uuid !== undefined && uuid !== payment.transactionUuid) ||
      (product !== undefined && product !== this.options.productCode)
    ) {
      return unknown("other-payment");
    }
    const refId = body.ref_id && body.ref_id !== "null" ? body.ref_id : null;
    switch (state) {
      case "COMPLETE": {
        if (uuid === undefined) return unknown("other-payment");
        const paid = parseAmount(body.total_amount);
        const asked = parseAmount(payment.totalAmount);
        if (paid === null || asked === null) return unknown("other-amount");
        if (!sameAmount(paid, asked))
          return { state: "paid-other-amount", refId, totalAmount: paid };
        return { state: "paid", refId };
      }
      case "PENDING":
      case "AMBIGUOUS":
        return { state: "pending", status: state };
      case "NOT_FOUND":
        return { state: "not-found" };
      case "CANCELED":
        return { state: "canceled" };
      case "FULL_REFUND":
        return { state: "refunded", refId };
      case "PARTIAL_REFUND":
        return { state: "partially-refunded", refId };
      default:
        return unknown("unexpected-status");
    }
  }
}

const unknown = (reason: EsewaUnknownReason): EsewaStatusResult => ({ state: "unknown", reason });
