// Asking an outside party gently: at most `ratePerSecond` calls a second (counting retries), and
// a failed call retried a few times; after the last failure the answer is "not asked", which the
// comparison reports as such and never as matched.
export interface Pacing {
  ratePerSecond: number;
  attempts: number;
  sleep(ms: number): Promise<void>;
  now(): number;
}

export type Asked<T> = { asked: true; answer: T } | { asked: false };

export class PacedAsker {
  private nextAt = 0;

  constructor(private readonly pacing: Pacing) {}

  async ask<T>(call: () => Promise<T>): Promise<Asked<T>> {
    for (let attempt = 1; attempt <= this.pacing.attempts; attempt++) {
      await this.turn();
      try {
        return { asked: true, answer: await call() };
      } catch {
        // Retried (paced like any call) until the attempts run out.
      }
    }
    return { asked: false };
  }

  /** Waits for this call's slot: calls are 1/rate seconds apart. */
  private async turn(): Promise<void> {
    const now = this.pacing.now();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + 1000 / this.pacing.ratePerSecond;
    if (at > now) await this.pacing.sleep(at - now);
  }
}
