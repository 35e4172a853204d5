// The payment system asked on demand ("I have paid", the return and redirect pages) at most once
// an interval per offer, however often a buyer taps or a page is loaded: a check under way is
// joined, and one done within the interval is not asked again (its answer is given instead).
// Per process: with N replicas, at most N asks an interval. The periodic checks are paced
// already (PAYMENT_CHECK_SECONDS) and do not pass here.
import type { Clock } from "./ports.js";

/** A check's answer, and whether it is that of a check done earlier within the interval. */
export interface Throttled<T> {
  outcome: Promise<T>;
  /** Answered by a check already done (not under way): the asker is told to wait. */
  recent: boolean;
}

export class CheckThrottle<T> {
  private readonly checks = new Map<string, { doneAt: number | null; outcome: Promise<T> }>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: Clock,
  ) {}

  /** `ask` runs unless a check of `key` is under way or was done within the interval. */
  check(key: string, ask: () => Promise<T>): Throttled<T> {
    const at = this.now();
    for (const [other, check] of this.checks) {
      if (check.doneAt !== null && at - check.doneAt >= this.intervalMs) this.checks.delete(other);
    }
    const last = this.checks.get(key);
    if (last) return { outcome: last.outcome, recent: last.doneAt !== null };
    const check: { doneAt: number | null; outcome: Promise<T> } = {
      doneAt: null,
      outcome: ask(),
    };
    this.checks.set(key, check);
    // The interval runs from the answer: a slow check is not followed at once by another.
    check.outcome.then(
      () => {
        check.doneAt = this.now();
      },
      // A check that failed is no answer: the next ask runs.
      () => {
        if (this.checks.get(key) === check) this.checks.delete(key);
      },
    );
    return { outcome: check.outcome, recent: false };
  }
}
