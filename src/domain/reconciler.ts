import type { JournalStore } from "./journal.js";
import type { OutcomeTeller } from "./outcomes.js";
import type { Clock, Log } from "./ports.js";
import type { TopupService } from "./topup.js";

export interface ReconcilerOptions {
  intervalMs: number;
  /** Entries younger than this are left to the flow that is still handling them. */
  staleAfterMs: number;
}

/**
 * Finishes what a crash or an unreachable provider left behind: pending top-ups are resolved
 * with txn-status, and settled outcomes the buyer was never told about are told.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly journal: JournalStore,
    private readonly topups: TopupService,
    private readonly teller: OutcomeTeller,
    private readonly options: ReconcilerOptions,
    private readonly log: Log,
    private readonly now: Clock = Date.now,
  ) {}

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; returns how many outcomes were told. */
  async runOnce(): Promise<number> {
    const cutoff = this.now() - this.options.staleAfterMs;
    const settled: string[] = [];
    for (const checkoutId of await this.journal.pendingSince(cutoff)) {
      const entry = await this.topups.resolvePending(checkoutId);
      if (entry) settled.push(entry.checkoutId);
    }
    // Outcomes settled just now, and older ones whose telling failed; the live flow tells its
    // own recent ones.
    const untold = await this.journal.untoldSince(cutoff);
    let told = 0;
    for (const checkoutId of new Set([...settled, ...untold])) {
      const entry = await this.journal.get(checkoutId);
      if (entry && (await this.teller.tell(entry))) told++;
    }
    return told;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.runOnce()
      .then((told) => {
        if (told > 0) this.log.info({ told }, "reconciliation told outcomes");
      })
      .catch((error: unknown) => this.log.error({ err: error }, "reconciliation failed"))
      .finally(() => {
        this.running = undefined;
      });
  }
}
