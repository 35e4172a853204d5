// Where every write of a purchase goes, and the rule for when the store fails. A write before
// an external effect must land, or the effect does not happen. A write after one (an outcome,
// "told") must not wait for the store: it is kept in memory and written again until the store
// is back, while the buyer is told at once. A write over a stale copy (StaleWriteError) is
// never kept: the newer row wins, and the caller reads it again.
import type { Log } from "./ports.js";
import { type Purchase, type PurchaseStore, StaleWriteError } from "./purchase.js";
import { WriteBehind } from "./write-behind.js";

export class PurchaseBook {
  /** Outcomes that could not be written yet, newest version per purchase. */
  private readonly unwritten = new Map<string, { purchase: Purchase; dueAt?: number }>();
  private readonly behind: WriteBehind;

  constructor(
    readonly store: PurchaseStore,
    private readonly log: Log,
    retryMs = 1_000,
  ) {
    this.behind = new WriteBehind({
      write: () => this.writeWaiting(),
      waiting: () => this.unwritten.size > 0,
      retryMs,
    });
  }

  /** Writes before an external effect: throws when the store fails (then nothing is sent). */
  async commit(purchase: Purchase, dueAt?: number): Promise<void> {
    await this.store.save(purchase, dueAt);
    this.written(purchase);
  }

  /**
   * Writes an outcome; retried in the background until the store takes it. Throws only
   * StaleWriteError (a lost race), at once.
   */
  async record(purchase: Purchase, dueAt?: number): Promise<void> {
    try {
      await this.commit(purchase, dueAt);
    } catch (error) {
      if (error instanceof StaleWriteError) throw error;
      if (this.unwritten.size === 0) {
        this.log.error(
          { purchaseId: purchase.id, reason: error instanceof Error ? error.message : "" },
          "purchase outcome kept in memory until the store is back",
        );
      }
      this.unwritten.set(purchase.id, { purchase, dueAt });
      this.behind.schedule();
    }
  }

  /** The newest version: one not written yet wins over the store's. */
  async get(id: string): Promise<Purchase | null> {
    return this.unwritten.get(id)?.purchase ?? (await this.store.get(id));
  }

  /** How many outcomes wait to be written. */
  get backlog(): number {
    return this.unwritten.size;
  }

  /** Tries to write what waits (shutdown); what still fails is logged. */
  async drain(): Promise<void> {
    this.behind.stop();
    await this.behind.flush();
    if (this.unwritten.size > 0) {
      this.log.error(
        { purchaseIds: [...this.unwritten.keys()] },
        "purchase outcomes not written before stopping: reconciliation resolves them",
      );
    }
  }

  private async writeWaiting(): Promise<void> {
    for (const { purchase, dueAt } of [...this.unwritten.values()]) {
      try {
        await this.store.save(purchase, dueAt);
      } catch (error) {
        if (!(error instanceof StaleWriteError)) return;
        // Another instance wrote it meanwhile: its version stands, and is resolved from there.
        this.log.warn({ purchaseId: purchase.id }, "a purchase outcome kept in memory is stale");
      }
      this.written(purchase);
    }
  }

  /** This version is in the store; the backlog drained is said once. */
  private written(purchase: Purchase): void {
    // A newer version may have arrived while this one was written.
    if (this.unwritten.get(purchase.id)?.purchase !== purchase && this.unwritten.has(purchase.id)) {
      return;
    }
    if (this.unwritten.delete(purchase.id) && this.unwritten.size === 0) {
      this.log.info({}, "purchase outcomes written after all");
    }
  }
}
