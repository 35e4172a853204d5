// Work that runs in the background and is waited for on stop: the updates under way, a
// purchase after Confirm, a paid top-up, a refund's tries, a webhook update, a broadcast.

export class TaskGroup {
  private readonly running = new Set<Promise<void>>();

  /** `onError`: where a task's failure goes (by default nowhere: the caller has caught it). */
  constructor(private readonly onError: (error: unknown) => void = () => undefined) {}

  /** `task` is waited for by `drain` until it has ended. */
  track(task: Promise<unknown>): void {
    const tracked: Promise<void> = task
      .then(() => undefined, this.onError)
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  /** How many tasks are under way. */
  get size(): number {
    return this.running.size;
  }

  /** Resolves once no task is under way, those started meanwhile included. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
