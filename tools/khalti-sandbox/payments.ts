// The sandbox's mutable world: the payments and how each may change. Expiry is applied lazily
// whenever a payment is looked at, so no timer has to run and a test clock can jump ahead.

import type { KhaltiPayment } from "./types.js";
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

type RefundOutcome = { ok: true; payment: KhaltiPayment } | { ok: false; detail: string };

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

  /** The buyer pays `totalAmount` (the initiated amount unless told otherwise). */
  complete(pidx: string, how: { totalAmount?: number; redirected: boolean }): KhaltiPayment {
    const payment = this.initiated(pidx, "pay");
    const transactionId = newId();
    payment.status = "Completed";
    payment.totalAmount = how.totalAmount ?? payment.amount;
    payment.transactionId = transactionId;
    payment.fee = Math.round(payment.totalAmount * this.options.feeRate);
    payment.mobile = maskMobile(BUYER_WALLET);
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

  expire(pidx: string): KhaltiPayment {
    const payment = this.initiated(pidx, "expire");
    payment.status = "Expired";
    const now = this.options.now();
    if (now < payment.expiresAt) payment.expiresAt = now;
    return payment;
  }

  /** A full refund (`amount` undefined: whatever is left) or a partial one. */
  refund(transactionId: string, amount: number | undefined): RefundOutcome {
    const pidx = this.pidxByTransaction.get(transactionId);
    const payment = pidx === undefined ? undefined : this.find(pidx);
    if (!payment) return { ok: false, detail: "Transaction not found." };
    if (payment.status === "Refunded") {
      return { ok: false, detail: "This transaction has already been refunded." };
    }
    const left = payment.totalAmount - payment.refundedAmount;
    const refunding = amount ?? left;
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
