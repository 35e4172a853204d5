// How many requests each client address may make a minute (the return page: each hit may cost
// a lookup at the payment system), or each Mini App user a window of their own. Kept in memory:
// a replica counts its own traffic.

const MINUTE_MS = 60_000;

export class ClientLimit {
  private window = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    /** The window counted (a minute unless told). */
    private readonly windowMs = MINUTE_MS,
  ) {}

  /** Counts one request; false when this client has had its share of this minute. */
  take(client: string): boolean {
    const window = Math.floor(this.now() / this.windowMs);
    // A new minute forgets the last: the map never outgrows one minute's clients.
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(client) ?? 0) + 1;
    this.counts.set(client, count);
    return count <= this.perMinute;
  }

  /** Seconds until the next window, for Retry-After. */
  retryAfterSeconds(): number {
    return Math.ceil((this.windowMs - (this.now() % this.windowMs)) / 1000);
  }
}
