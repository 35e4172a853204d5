// The one place that tells a buyer how a purchase ended (the receipt, a decline, "nothing was
// charged", "still checking") and records that they were told, whoever learned the outcome:
// the purchase itself, reconciliation, another instance.
import { listedEnd } from "./listed-end.js";
import type { Log, ProviderPort } from "./ports.js";
import { isUntold, type Purchase, type PurchasePhase, StaleWriteError } from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";
import { type SavedConnectionStore, shortCustomerName } from "./saved-connections.js";

/** Sends the outcome of a purchase to its buyer; throws when that fails. */
export interface OutcomeChannel {
  tell(purchase: Purchase): Promise<void>;
}

/** What a charged purchase brings about besides its receipt; each is optional. */
export interface AfterCharge {
  /** Re-reads the renewed subscription's end for the receipt. */
  provider?: Pick<ProviderPort, "getPackages">;
  /** Where a connection topped up successfully is remembered for its buyer. */
  saved?: SavedConnectionStore;
}

/** What follows once a purchase was told; `tell` waits for it. */
export type ToldListener = (purchase: Purchase) => void | Promise<void>;

export class OutcomeTeller {
  private readonly listeners = new Map<PurchasePhase, ToldListener[]>();

  constructor(
    private readonly book: PurchaseBook,
    private readonly channel: OutcomeChannel,
    private readonly log: Log,
    private readonly after: AfterCharge = {},
  ) {}

  /** True once told (or nothing to tell); false when the message failed: told again later. */
  async tell(purchase: Purchase): Promise<boolean> {
    if (!isUntold(purchase)) return true;
    const { provider } = this.after;
    if (purchase.phase === "charged" && purchase.renewedUntil === undefined) {
      purchase.renewedUntil = provider
        ? await listedEnd(
            provider,
            {
              cuid: purchase.customer.cuid,
              connection: purchase.connection,
              code: purchase.bouquet.code,
            },
            this.log,
            { purchaseId: purchase.id },
          )
        : null;
      // Written before the receipt goes out: its "Remind me" reads the end from the ledger. A
      // copy gone stale is told all the same, as below.
      await this.write(purchase);
    }
    // Saved before the receipt goes out: the buyer's next tap may be /topup.
    if (purchase.phase === "charged") await this.remember(purchase);
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
    // Told, but the purchase moved on meanwhile: its newer phase is told in its turn.
    if (!(await this.write(purchase))) {
      this.log.info({ purchaseId: purchase.id }, "told a purchase that has moved on since");
    }
    for (const listener of this.listeners.get(purchase.phase) ?? []) await listener(purchase);
    return true;
  }

  /**
   * `listener` runs each time a purchase in `phase` was told: a charged one counts a renewal, a
   * refund-due one is refunded, an unknown one alerts operators. An event, not a constructor
   * argument: the refund desk that listens tells through this teller too.
   */
  whenTold(phase: PurchasePhase, listener: ToldListener): void {
    this.listeners.set(phase, [...(this.listeners.get(phase) ?? []), listener]);
  }

  /** False when the purchase moved on since it was read (its newer phase is told in its turn). */
  private async write(purchase: Purchase): Promise<boolean> {
    try {
      await this.book.record(purchase);
      return true;
    } catch (error) {
      if (!(error instanceof StaleWriteError)) throw error;
      return false;
    }
  }

  /** Offered again on the buyer's next /topup; a failure here costs only that convenience. */
  private async remember(purchase: Purchase): Promise<void> {
    try {
      await this.after.saved?.remember(purchase.buyer, {
        customerName: shortCustomerName(purchase.customer.name),
        service: purchase.connection.service,
        connectionId: purchase.connection.id,
      });
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "could not remember the connection");
    }
  }
}
