// Looking a customer up reveals their name and connections, and anybody can type codes into
// the bot: each user may make LOOKUP_LIMIT lookups per window, counted across instances.
// Staff and admins are not limited.

export type Allowance = { allowed: true } | { allowed: false; retryAt: number };

/** A fixed-window counter shared by the instances. */
export interface LookupCounter {
  /** Counts one more lookup of the user's; returns the count and when the window ends. */
  add(userId: number, windowMs: number): Promise<{ count: number; resetAt: number }>;
}

export interface LookupLimitOptions {
  /** Lookups per window; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  isExempt(userId: number): boolean;
}

export class LookupLimit {
  constructor(
    private readonly counter: LookupCounter,
    private readonly options: LookupLimitOptions,
  ) {}

  async take(userId: number): Promise<Allowance> {
    const { limit, windowMs, isExempt } = this.options;
    if (limit === 0 || isExempt(userId)) return { allowed: true };
    const { count, resetAt } = await this.counter.add(userId, windowMs);
    return count <= limit ? { allowed: true } : { allowed: false, retryAt: resetAt };
  }
}
