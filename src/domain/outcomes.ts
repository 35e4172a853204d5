// The one place that tells a buyer how a purchase ended (the receipt, a decline, "nothing was
// charged", "still checking") and records that they were told, whoever learned the outcome:
// the purchase itself, reconciliation, another instance.
import type { Log, ProviderPort } from "./ports.js";
import { isUntold, type Purchase } from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";
import { type SavedConnectionStore, shortCustomerName } from "./saved-connections.js";

/** Sends the outcome of a purchase to its buyer; throws when that fails. */
export interface OutcomeChannel {
  tell(purchase: Purchase): Promise<void>;
}

export class OutcomeTeller {
  constructor(
    private readonly book: PurchaseBook,
    private readonly channel: OutcomeChannel,
    private readonly log: Log,
    /** Re-reads the renewed subscription's end for the receipt. */
    private readonly provider?: Pick<ProviderPort, "getPackages">,
    /** Where a connection topped up successfully is remembered for its buyer. */
    private readonly saved?: SavedConnectionStore,
    /** Called once a charged purchase was told (counts renewals that followed a reminder). */
    private readonly onCharged?: (purchase: Purchase) => void,
  ) {}

  /** True once told (or nothing to tell); false when the message failed: told again later. */
  async tell(purchase: Purchase): Promise<boolean> {
    if (!isUntold(purchase)) return true;
    if (purchase.phase === "charged" && purchase.renewedUntil === undefined) {
      purchase.renewedUntil = await this.renewedUntil(purchase);
    }
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
    if (purchase.phase === "charged") {
      this.onCharged?.(purchase);
      await this.remember(purchase);
    }
    return true;
  }

  /** Offered again on the buyer's next /topup; a failure here costs only that convenience. */
  private async remember(purchase: Purchase): Promise<void> {
    try {
      await this.saved?.remember(purchase.buyer, {
        customerName: shortCustomerName(purchase.customer.name),
        service: purchase.connection.service,
        connectionId: purchase.connection.id,
      });
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "could not remember the connection");
    }
  }

  /** The end the provider lists now for what was bought; null when it cannot be read. */
  private async renewedUntil(purchase: Purchase) {
    if (!this.provider) return null;
    try {
      const offer = await this.provider.getPackages(purchase.customer.cuid, purchase.connection);
      const renewed = offer.subscriptions.find((s) => s.code === purchase.bouquet.code);
      return renewed?.end ?? null;
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "could not re-read the new end date");
      return null;
    }
  }
}
