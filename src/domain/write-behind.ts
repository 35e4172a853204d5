// Writing behind while a store is away: what it could not take waits (in memory, in a journal)
// and is written again every `retryMs` until nothing waits. One pass at a time: a pass asked
// for while one is under way joins it. Used by purchase-book.ts and payments.ts.

export interface WriteBehindOptions {
  /** Writes what waits; what the store still refuses keeps waiting. */
  write(): Promise<void>;
  /** Whether anything still waits to be written. */
  waiting(): boolean;
  retryMs: number;
  /** A pass that failed as a whole (the next one is scheduled all the same). */
  onFailure?(error: unknown): void;
}

export class WriteBehind {
  private timer: NodeJS.Timeout | undefined;
  private passing: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: WriteBehindOptions) {}

  /** A pass now, or the one under way. */
  flush(): Promise<void> {
    this.passing ??= this.options.write().finally(() => {
      this.passing = undefined;
    });
    return this.passing;
  }

  /** A pass now (its failure goes to onFailure), then one every `retryMs` while any waits. */
  async writeNow(): Promise<void> {
    await this.flush().catch((error: unknown) => this.options.onFailure?.(error));
    if (this.options.waiting()) this.schedule();
  }

  /** A pass in `retryMs` (unless one is due already), and more after it while any waits. */
  schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeNow();
    }, this.options.retryMs);
    this.timer.unref();
  }

  /** No pass is scheduled any more (shutdown); what waits stays where it is kept. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
