// The one place that tells a buyer how a purchase ended (the receipt, a decline, "nothing was
// charged", "still checking") and records that they were told, whoever learned the outcome:
// the purchase itself, reconciliation, another instance.
import type { Log } from "./ports.js";
import { isUntold, type Purchase } from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";

/** Sends the outcome of a purchase to its buyer; throws when that fails. */
export interface OutcomeChannel {
  tell(purchase: Purchase): Promise<void>;
}

export class OutcomeTeller {
  constructor(
    private readonly book: PurchaseBook,
    private readonly channel: OutcomeChannel,
    private readonly log: Log,
  ) {}

  /** True once told (or nothing to tell); false when the message failed: told again later. */
  async tell(purchase: Purchase): Promise<boolean> {
    if (!isUntold(purchase)) return true;
    try {
      await this.channel.tell(purchase);
    } catch (error) {
      this.log.warn(
        { err: error, purchaseId: purchase.id },
        "could not tell a purchase's outcome yet",
      );
      return false;
    }
    purchase.told = purchase.phase;
    await this.book.record(purchase);
    return true;
  }
}
