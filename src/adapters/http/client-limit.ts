// How many requests each client address may make a minute (the return page: each hit may cost
// a lookup at the payment system). Kept in memory: a replica counts its own traffic.

const WINDOW_MS = 60_000;

export class ClientLimit {
  private window = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request; false when this client has had its share of this minute. */
  take(client: string): boolean {
    const window = Math.floor(this.now() / WINDOW_MS);
    // A new minute forgets the last: the map never outgrows one minute's clients.
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(client) ?? 0) + 1;
    this.counts.set(client, count);
    return count <= this.perMinute;
  }

  /** Seconds until the next minute, for Retry-After. */
  retryAfterSeconds(): number {
    return Math.ceil((WINDOW_MS - (this.now() % WINDOW_MS)) / 1000);
  }
}
