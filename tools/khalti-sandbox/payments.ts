// The sandbox's mutable world: the payments and how each may change. Expiry is applied lazily
// whenever a payment is looked at, so no timer has to run and a test clock can jump ahead.

import type { KhaltiPayment, PayOptions } from "./types.js";
import type { InitiateOrder, JsonObject } from "./validate.js";
import { maskMobile, newId } from "./wire.js";

/** The buyer every sandbox payment comes from: one of Khalti's own test wallets. */
const BUYER_WALLET = "9800000001";

/** A change the payment's state does not allow (paying a canceled one, say). */
export class PaymentStateError extends Error {
  constructor(
    readonly payment: KhaltiPayment,
    message: string,
  ) {
    super(message);
  }
}

/** No payment has this pidx. */
export class UnknownPaymentError extends Error {
  constructor(readonly pidx: string) {
    super(`Unknown pidx "${pidx}"`);
  }
}

type RefundOutcome =
  | { ok: true; payment: KhaltiPayment }
  | { ok: false; detail: string }
  /** A field of the refund's body is wrong: Khalti's validation error on it. */
  | { ok: false; field: string; message: string };

/** A refund through the API, or from the merchant's dashboard (no mobile asked). */
export interface RefundRequest {
  /** Undefined: whatever is left. */
  amount: number | undefined;
  /** The payer's Khalti account, which a bank payment's refund must name. */
  mobile: string | undefined;
  outside?: boolean;
}

const MOBILE = /^9\d{9}$/;

interface PaymentBookOptions {
  now: () => Date;
  expiresInMs: number;
  feeRate: number;
}

export class PaymentBook {
  private readonly byPidx = new Map<string, KhaltiPayment>();
  private readonly pidxByTransaction = new Map<string, string>();

  constructor(private readonly options: PaymentBookOptions) {}

  initiate(order: InitiateOrder, body: JsonObject): KhaltiPayment {
    const initiatedAt = this.options.now();
    const payment: KhaltiPayment = {
      pidx: newId(),
      status: "Initiated",
      amount: order.amount,
      totalAmount: order.amount,
      purchaseOrderId: order.purchaseOrderId,
      purchaseOrderName: order.purchaseOrderName,
      returnUrl: order.returnUrl,
      websiteUrl: order.websiteUrl,
      initiatedWith: structuredClone(body),
      transactionId: null,
      fee: 0,
      paidBy: null,
      payerMobile: null,
      mobile: null,
      refundedAmount: 0,
      refunded: false,
      redirected: false,
      initiatedAt,
      expiresAt: new Date(initiatedAt.getTime() + this.options.expiresInMs),
    };
    this.byPidx.set(payment.pidx, payment);
    return payment;
  }

  /** The live payment (callers must not leak it: snapshots go out), expiry applied. */
  find(pidx: string): KhaltiPayment | undefined {
    const payment = this.byPidx.get(pidx);
    if (payment?.status === "Initiated" && this.options.now() >= payment.expiresAt) {
      payment.status = "Expired";
    }
    return payment;
  }

  all(): KhaltiPayment[] {
    return [...this.byPidx.keys()].flatMap((pidx) => this.find(pidx) ?? []);
  }

  /** The buyer pays `amount` (the initiated amount unless told otherwise). */
  complete(pidx: string, how: PayOptions & { redirected: boolean }): KhaltiPayment {
    const mobile = how.mobile ?? BUYER_WALLET;
    if (!MOBILE.test(mobile))
      throw new RangeError(`mobile must be 10 digits from 9, got ${mobile}`);
    const payment = this.initiated(pidx, "pay");
    const transactionId = newId();
    payment.status = "Completed";
    payment.totalAmount = how.amount ?? payment.amount;
    payment.transactionId = transactionId;
    payment.fee = Math.round(payment.totalAmount * this.options.feeRate);
    payment.paidBy = how.paidBy ?? "wallet";
    payment.payerMobile = mobile;
    payment.mobile = how.revealMobile ? mobile : maskMobile(mobile);
    payment.redirected = how.redirected;
    this.pidxByTransaction.set(transactionId, pidx);
    return payment;
  }

  cancel(pidx: string, how: { redirected: boolean }): KhaltiPayment {
    const payment = this.initiated(pidx, "cancel");
    payment.status = "User canceled";
    payment.redirected = how.redirected;
    return payment;
  }

  fail(pidx: string): KhaltiPayment {
    const payment = this.initiated(pidx, "fail");
    payment.status = "Failed";
    return payment;
  }

  expire(pidx: string): KhaltiPayment {
    const payment = this.initiated(pidx, "expire");
    payment.status = "Expired";
    const now = this.options.now();
    if (now < payment.expiresAt) payment.expiresAt = now;
    return payment;
  }

  /**
   * A full refund (`amount` undefined: whatever is left) or a partial one. A bank payment's
   * refund through the API must name the payer's Khalti account (`mobile`).
   */
  refund(transactionId: string, request: RefundRequest): RefundOutcome {
    const pidx = this.pidxByTransaction.get(transactionId);
    const payment = pidx === undefined ? undefined : this.find(pidx);
    if (!payment) return { ok: false, detail: "Transaction not found." };
    if (payment.status === "Refunded") {
      return { ok: false, detail: "This transaction has already been refunded." };
    }
    if (payment.paidBy === "bank" && !request.outside) {
      if (request.mobile === undefined) {
        return { ok: false, field: "mobile", message: "This field is required." };
      }
      if (request.mobile !== payment.payerMobile) {
        const message = "The mobile number is not the Khalti account of this transaction.";
        return { ok: false, field: "mobile", message };
      }
    }
    const left = payment.totalAmount - payment.refundedAmount;
    const refunding = request.amount ?? left;
    if (refunding > left) {
      return { ok: false, detail: `The refund amount exceeds the refundable amount (${left}).` };
    }
    payment.refundedAmount += refunding;
    payment.refunded = true;
    payment.status =
      payment.refundedAmount === payment.totalAmount ? "Refunded" : "Partially Refunded";
    return { ok: true, payment };
  }

  clear(): void {
    this.byPidx.clear();
    this.pidxByTransaction.clear();
  }

  private initiated(pidx: string, action: string): KhaltiPayment {
    const payment = this.find(pidx);
    if (!payment) throw new UnknownPaymentError(pidx);
    if (payment.status !== "Initiated") {
      throw new PaymentStateError(payment, `Cannot ${action} ${pidx}: it is ${payment.status}`);
    }
    return payment;
  }
}
