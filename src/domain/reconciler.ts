import { errorFields, type Logger } from "../logger.js";
import type { Journal, JournalEntry } from "./journal.js";
import type { TopupService } from "./topup.js";

export interface ReconcilerOptions {
  intervalMs: number;
  /** Entries younger than this are left to the flow that is still handling them. */
  staleAfterMs: number;
}

/** Delivers a settled entry's outcome to its user; throws when that fails. */
export type OutcomeDelivery = (entry: JournalEntry) => Promise<void>;

/**
 * Finishes what a crash or an unreachable provider left behind: pending top-ups are resolved
 * with txn-status, and settled outcomes the user was never told about are delivered.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly journal: Journal,
    private readonly topups: TopupService,
    private readonly deliver: OutcomeDelivery,
    private readonly options: ReconcilerOptions,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; returns how many outcomes were delivered. */
  async runOnce(): Promise<number> {
    const cutoff = this.now() - this.options.staleAfterMs;
    const settled: string[] = [];
    for (const checkoutId of await this.journal.pendingSince(cutoff)) {
      const entry = await this.topups.resolvePending(checkoutId);
      if (entry) settled.push(entry.checkoutId);
    }
    // Outcomes settled just now, and older ones whose delivery failed; the live flow delivers
    // its own recent ones.
    const undelivered = await this.journal.undeliveredSince(cutoff);
    let delivered = 0;
    for (const checkoutId of new Set([...settled, ...undelivered])) {
      if (await this.deliverOne(checkoutId)) delivered++;
    }
    return delivered;
  }

  private async deliverOne(checkoutId: string): Promise<boolean> {
    const entry = await this.journal.get(checkoutId);
    if (!entry) return false;
    try {
      await this.deliver(entry);
      await this.journal.delivered(checkoutId);
      return true;
    } catch (error) {
      this.logger.warn(
        { checkoutId, ...errorFields(error) },
        "could not deliver a top-up outcome yet",
      );
      return false;
    }
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.runOnce()
      .then((delivered) => {
        if (delivered > 0) this.logger.info({ delivered }, "reconciliation delivered outcomes");
      })
      .catch((error: unknown) => this.logger.error(errorFields(error), "reconciliation failed"))
      .finally(() => {
        this.running = undefined;
      });
  }
}
