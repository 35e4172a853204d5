// Where a refund is issued. A payment is owed back only when its top-up certainly did not
// happen (topup.ts decides: refused twice, offer changed, bouquet gone, paused past the
// window) or when it paid for nothing (payments.ts). Telegram's Bot API cannot refund a card
// payment, so a person refunds it through the payment provider and records it here: marked
// once (the ledger refuses a second time), with who and when, and the buyer is told.
import type { OutcomeTeller } from "./outcomes.js";
import type { PaymentLedger, Refund } from "./payment.js";
import type { Log } from "./ports.js";
import type { Purchase } from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";

/** What operators need to refund a payment by hand. */
export type RefundAlert = Pick<
  Refund,
  "purchaseId" | "buyer" | "method" | "currency" | "minor" | "chargeId" | "providerChargeId"
>;

export interface RefundChannel {
  /**
   * Every admin and support group: a refund is due, or a paid top-up's outcome is still
   * unknown after the verify window (nothing is refunded until txn-status tells).
   */
  alertOperators(refund: RefundAlert, about: "refund-due" | "outcome-unknown"): Promise<void>;
  /** The buyer of a payment that paid for nothing: it will be refunded, or it was. */
  tellBuyer(refund: Refund, state: "owed" | "refunded"): Promise<void>;
}

export class RefundDesk {
  constructor(
    private readonly book: PurchaseBook,
    private readonly ledger: PaymentLedger,
    private readonly teller: OutcomeTeller,
    private readonly channel: RefundChannel,
    private readonly log: Log,
  ) {}

  /** A payment that pays for nothing (recorded as owed by the ledger): say so to all. */
  async owe(refund: Refund): Promise<void> {
    this.log.warn({ purchaseId: refund.purchaseId, paymentId: refund.paymentId }, "refund due");
    await this.quietly(this.channel.alertOperators(refund, "refund-due"));
    await this.quietly(this.channel.tellBuyer(refund, "owed"));
  }

  /** A purchase's refund-due was told to its buyer (once): the operators are alerted. */
  purchaseOwed(purchase: Purchase): Promise<void> {
    return this.alertAbout(purchase, "refund-due");
  }

  /**
   * A paid purchase still unknown after the verify window was told "still checking" (once):
   * nothing is refunded while the top-up may have happened, so people are told to watch it.
   */
  outcomeUnknown(purchase: Purchase): Promise<void> {
    return this.alertAbout(purchase, "outcome-unknown");
  }

  private async alertAbout(purchase: Purchase, about: "refund-due" | "outcome-unknown") {
    const charge = purchase.payment?.charge;
    if (!purchase.payment || !charge) return;
    this.log.warn({ purchaseId: purchase.id, reason: purchase.reason }, about);
    await this.quietly(
      this.channel.alertOperators(
        {
          purchaseId: purchase.id,
          buyer: purchase.buyer,
          method: purchase.payment.method,
          currency: purchase.payment.currency,
          minor: purchase.payment.minor,
          chargeId: charge.id,
          providerChargeId: charge.providerId,
        },
        about,
      ),
    );
  }

  /** Refunds still owed, oldest first. */
  due(count: number): Promise<Refund[]> {
    return this.ledger.refundsDue(count);
  }

  /**
   * Someone refunded it through the payment provider: recorded once, and the buyer told.
   * Null when nothing is owed by that purchase or charge id (unknown, or marked before).
   */
  async markRefunded(key: string, by: string, note: string | null): Promise<Refund | null> {
    const refund = await this.ledger.markRefunded(key, by, note);
    if (!refund) return null;
    this.log.info({ purchaseId: refund.purchaseId, paymentId: refund.paymentId }, "refunded");
    const purchase = refund.purchaseId ? await this.book.get(refund.purchaseId) : null;
    if (purchase?.phase === "refunded") await this.teller.tell(purchase);
    else await this.quietly(this.channel.tellBuyer(refund, "refunded"));
    return refund;
  }

  private async quietly(task: Promise<void>): Promise<void> {
    await task.catch((error: unknown) => {
      this.log.warn({ err: error }, "could not say that a refund is due or done");
    });
  }
}
