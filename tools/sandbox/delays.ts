// Timers for delayed responses that close() can abandon at once, so a hanging fault never
// keeps the sandbox (or a test run) alive.

export class Delays {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();

  /** Resolves true after `ms`, or false as soon as cancelAll() is called. */
  wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve(true);
      }, ms);
      this.pending.set(timer, () => resolve(false));
    });
  }

  cancelAll(): void {
    for (const [timer, cancel] of this.pending) {
      clearTimeout(timer);
      cancel();
    }
    this.pending.clear();
  }
}
