// A pass that runs again after the delay it returns, on a timer that keeps no process alive;
// stopping waits for the pass under way. The daily report and the daily reconciliation run so.
export class RepeatingPass {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  /** `maxSleepMs`: looked at again at least this often, whatever the clock did meanwhile. */
  constructor(
    private readonly pass: () => Promise<number>,
    private readonly maxSleepMs = Number.POSITIVE_INFINITY,
  ) {}

  start(): void {
    this.stopped = false;
    this.later(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private later(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.running = this.pass().then((next) => {
          this.running = undefined;
          this.later(next);
        });
      },
      Math.min(delayMs, this.maxSleepMs),
    );
    this.timer.unref();
  }
}
