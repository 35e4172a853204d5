// Finishes what a crash, a stopped instance or an unreachable provider left behind: open
// purchases are resolved with txn-status as soon as their lease lapses or their next check
// comes, and outcomes nobody has told yet are told.
import type { OutcomeTeller } from "./outcomes.js";
import type { Clock, Log } from "./ports.js";
import type { Claim } from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";

/** Finishes a claimed purchase (the top-up, or the payment when it waits for one). */
export interface ClaimResolver {
  resolve(claim: Claim): Promise<void>;
}

export interface ReconcilerOptions {
  /**
   * The longest wait between two passes: a purchase another instance opened (and left when it
   * died) is noticed within this, and finished when its lease lapses.
   */
  intervalMs: number;
  /** The shortest, so that a purchase due again at once does not spin. */
  minDelayMs: number;
  /** Lease time while an untold outcome is being told. */
  lockTtlMs: number;
  /** A failure that says itself elsewhere (the store being away): logged without a stack. */
  isTransient?(error: unknown): boolean;
  /** Counts what the passes did (metrics). */
  onResult?(result: "resolved" | "told"): void;
}

export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly book: PurchaseBook,
    private readonly topups: ClaimResolver,
    private readonly teller: OutcomeTeller,
    private readonly options: ReconcilerOptions,
    private readonly log: Log,
    private readonly now: Clock = Date.now,
  ) {}

  /** The first pass takes every purchase whose lease has lapsed, whatever its age. */
  start(): void {
    this.stopped = false;
    this.pass();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass; returns how many purchases it resolved or told. */
  async runOnce(): Promise<number> {
    const { store } = this.book;
    const ttl = this.options.lockTtlMs;
    // One look per purchase and pass: one whose new state could not be written stays due.
    const resolved: string[] = [];
    for (let claim = await store.claimDue(this.now(), ttl, resolved); claim; ) {
      resolved.push(claim.id);
      await this.topups.resolve(claim);
      this.options.onResult?.("resolved");
      claim = await store.claimDue(this.now(), ttl, resolved);
    }
    const looked: string[] = [];
    let told = 0;
    for (let claim = await store.claimUntold(ttl, looked); claim; ) {
      looked.push(claim.id);
      if (await this.tellClaimed(claim)) {
        told++;
        this.options.onResult?.("told");
      }
      claim = await store.claimUntold(ttl, looked);
    }
    return resolved.length + told;
  }

  /** Tells an untold outcome under the purchase's lease, so that no one else tells it too. */
  private async tellClaimed({ id, lease }: Claim): Promise<boolean> {
    try {
      const purchase = await this.book.get(id);
      return purchase !== null && (await this.teller.tell(purchase, true));
    } finally {
      await lease.release();
    }
  }

  private pass(): void {
    if (this.running || this.stopped) return;
    this.running = this.runOnce()
      .then((count) => {
        if (count > 0) this.log.info({ count }, "reconciliation finished purchases");
      })
      .catch((error: unknown) => {
        if (this.options.isTransient?.(error)) {
          this.log.debug({ reason: String(error) }, "reconciliation waits for the store");
        } else this.log.error({ err: error }, "reconciliation failed");
      })
      .then(() => this.schedule())
      .finally(() => {
        this.running = undefined;
      });
  }

  /** The next pass comes when the earliest open purchase is due, and at least every interval. */
  private async schedule(): Promise<void> {
    if (this.stopped) return;
    const { intervalMs, minDelayMs } = this.options;
    const next = await this.book.store.nextDue().catch(() => null);
    const delay =
      next === null ? intervalMs : Math.min(intervalMs, Math.max(minDelayMs, next - this.now()));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pass(), delay);
    this.timer.unref();
  }
}
