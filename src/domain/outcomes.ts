// The one place that tells a buyer how a top-up ended and records that they were told,
// whoever learned the outcome: the purchase itself or reconciliation after a restart.
import type { JournalEntry, JournalStore } from "./journal.js";
import type { Log } from "./ports.js";

/** Sends the outcome of a settled entry to its buyer; throws when that fails. */
export interface OutcomeChannel {
  tell(entry: JournalEntry): Promise<void>;
}

export class OutcomeTeller {
  constructor(
    private readonly journal: JournalStore,
    private readonly channel: OutcomeChannel,
    private readonly log: Log,
  ) {}

  /** True once told; false when the message failed (reconciliation tries again later). */
  async tell(entry: JournalEntry): Promise<boolean> {
    try {
      await this.channel.tell(entry);
    } catch (error) {
      this.log.warn(
        { checkoutId: entry.checkoutId, err: error },
        "could not tell a top-up outcome yet",
      );
      return false;
    }
    await this.journal.markTold(entry.checkoutId);
    return true;
  }
}
