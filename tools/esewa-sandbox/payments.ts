// The sandbox's mutable world: the payments, one per transaction_uuid, and how each may change.
// Every change the buyer makes (Pay, Cancel, Leave pending) also says where eSewa sends the
// browser, whether or not a browser is there to go.

import type { EsewaPayment, EsewaPaymentStatus, EsewaStatus } from "./types.js";
import type { FormOrder } from "./validate.js";
import { newReference } from "./wire.js";

/** A change the payment's state does not allow (paying a canceled one, say). */
export class PaymentStateError extends Error {
  constructor(
    readonly payment: EsewaPayment,
    message: string,
  ) {
    super(message);
  }
}

/** No payment has this transaction_uuid. */
export class UnknownPaymentError extends Error {
  constructor(readonly transactionUuid: string) {
    super(`Unknown transaction_uuid "${transactionUuid}"`);
  }
}

interface PaymentBookOptions {
  now: () => Date;
  /** A form posted and left unpaid this long (from its last post) expires: NOT_FOUND. */
  sessionMs?: number;
  /** Where eSewa sends the browser once the payment is in its new state. */
  redirectFor: (payment: EsewaPayment) => string;
}

/** Statuses under which eSewa holds a reference for the payment. */
const REFERENCED: ReadonlySet<EsewaPaymentStatus> = new Set([
  "COMPLETE",
  "PENDING",
  "AMBIGUOUS",
  "FULL_REFUND",
  "PARTIAL_REFUND",
]);

export class PaymentBook {
  private readonly byUuid = new Map<string, EsewaPayment>();
  private readonly references = new Set<string>();

  constructor(private readonly options: PaymentBookOptions) {}

  /**
   * A posted form: a new payment, or the same unpaid one posted again (the buyer reloaded the
   * merchant's page), which takes the new form. Undefined when the uuid has been used up.
   */
  submit(order: FormOrder): EsewaPayment | undefined {
    const known = this.byUuid.get(order.transactionUuid);
    if (known && known.status !== "INITIATED") return undefined;
    const now = this.options.now();
    const payment: EsewaPayment = {
      transactionUuid: order.transactionUuid,
      productCode: order.productCode,
      status: "INITIATED",
      amount: order.amount,
      taxAmount: order.taxAmount,
      productServiceCharge: order.productServiceCharge,
      productDeliveryCharge: order.productDeliveryCharge,
      totalAmount: order.totalAmount,
      totalPaisa: order.totalPaisa,
      successUrl: order.successUrl,
      failureUrl: order.failureUrl,
      submittedWith: structuredClone(order.fields),
      refId: null,
      redirectUrl: null,
      redirected: false,
      submittedAt: known?.submittedAt ?? now,
      updatedAt: now,
    };
    this.byUuid.set(payment.transactionUuid, payment);
    return payment;
  }

  /**
   * The live payment (callers must not leak it: snapshots go out), its session's expiry applied
   * lazily, so that no timer runs and a test clock can jump ahead.
   */
  find(transactionUuid: string): EsewaPayment | undefined {
    const payment = this.byUuid.get(transactionUuid);
    const session = this.options.sessionMs;
    if (
      payment?.status === "INITIATED" &&
      session !== undefined &&
      this.options.now().getTime() >= payment.updatedAt.getTime() + session
    ) {
      this.change(payment, "NOT_FOUND");
    }
    return payment;
  }

  all(): EsewaPayment[] {
    return [...this.byUuid.keys()].flatMap((uuid) => this.find(uuid) ?? []);
  }

  /** The buyer pays: from INITIATED, or once eSewa settles a PENDING or AMBIGUOUS one. */
  complete(transactionUuid: string, how: { redirected: boolean }): EsewaPayment {
    const payment = this.inState(transactionUuid, "pay", ["INITIATED", "PENDING", "AMBIGUOUS"]);
    return this.buyerMoves(payment, "COMPLETE", how);
  }

  cancel(transactionUuid: string, how: { redirected: boolean }): EsewaPayment {
    const payment = this.inState(transactionUuid, "cancel", ["INITIATED", "PENDING"]);
    return this.buyerMoves(payment, "CANCELED", how);
  }

  leavePending(transactionUuid: string, how: { redirected: boolean }): EsewaPayment {
    const payment = this.inState(transactionUuid, "leave pending", ["INITIATED"]);
    return this.buyerMoves(payment, "PENDING", how);
  }

  /** eSewa's back office: any status, no redirect. */
  setStatus(transactionUuid: string, status: EsewaStatus): EsewaPayment {
    const payment = this.known(transactionUuid);
    this.change(payment, status);
    return payment;
  }

  clear(): void {
    this.byUuid.clear();
    this.references.clear();
  }

  private buyerMoves(
    payment: EsewaPayment,
    status: EsewaStatus,
    how: { redirected: boolean },
  ): EsewaPayment {
    this.change(payment, status);
    payment.redirectUrl = this.options.redirectFor(payment);
    payment.redirected = how.redirected;
    return payment;
  }

  private change(payment: EsewaPayment, status: EsewaStatus): void {
    payment.status = status;
    payment.updatedAt = this.options.now();
    if (payment.refId === null && REFERENCED.has(status)) payment.refId = this.newReference();
  }

  private newReference(): string {
    let reference = newReference();
    while (this.references.has(reference)) reference = newReference();
    this.references.add(reference);
    return reference;
  }

  private known(transactionUuid: string): EsewaPayment {
    const payment = this.find(transactionUuid);
    if (!payment) throw new UnknownPaymentError(transactionUuid);
    return payment;
  }

  private inState(
    transactionUuid: string,
    action: string,
    allowed: readonly EsewaPaymentStatus[],
  ): EsewaPayment {
    const payment = this.known(transactionUuid);
    if (!allowed.includes(payment.status)) {
      throw new PaymentStateError(
        payment,
        `Cannot ${action} ${transactionUuid}: it is ${payment.status}`,
      );
    }
    return payment;
  }
}
