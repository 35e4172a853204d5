// Looking a customer up reveals who they are, and anybody can type codes into the bot: each
// user may make LOOKUP_LIMIT lookups per window, counted across instances, and a code that is
// not found costs two (guessing costs more than knowing). All subscribers together have a
// budget per hour (LOOKUP_BUDGET_PER_HOUR): the lookup that first exceeds it alerts the
// operators (exactly once: the shared count says which one it is), and while it is exceeded a
// user whose window starts then gets a quarter of the limit in that window. Users already in
// a window keep theirs, so a subscriber part-way through a top-up is not failed.
// Staff and admins are not limited.

import type { Log } from "./ports.js";

export type Allowance = { allowed: true } | { allowed: false; retryAt: number };

/** The budget of all users together, when there is one. */
interface Budget {
  limit: number;
  windowMs: number;
}

/** A fixed-window counter shared by the instances. */
export interface LookupCounter {
  /**
   * Counts `cost` more of the user's lookups. With a budget, the lookup also counts in it, and
   * a window the user starts while the budget is exceeded is marked slow.
   */
  add(
    userId: number,
    cost: number,
    windowMs: number,
    budget: Budget | undefined,
  ): Promise<{ count: number; resetAt: number; slow: boolean; spent: number }>;
  /** The user's window as it stands, nothing counted (count 0: no window). */
  peek(userId: number): Promise<{ count: number; resetAt: number; slow: boolean }>;
}

/** Tells the operators that the hour's budget was exceeded. */
export interface LookupAlarm {
  budgetExceeded(budget: number): Promise<void>;
}

export interface LookupLimitOptions {
  /** Lookups per window; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  /** Lookups per hour of everyone together; 0 turns the budget off. */
  budgetPerHour: number;
  isExempt(userId: number): boolean;
}

const HOUR_MS = 3_600_000;
/** What a code that is not found costs in all. */
const MISS_COST = 2;

/** The limit of a window started while the budget is exceeded: room for one miss at least. */
const slowLimit = (limit: number) => Math.max(MISS_COST, Math.floor(limit / 4));

export class LookupLimit {
  constructor(
    private readonly counter: LookupCounter,
    private readonly alarm: LookupAlarm,
    private readonly options: LookupLimitOptions,
    private readonly log: Log,
  ) {}

  /** Takes one lookup of the user's allowance. */
  async take(userId: number): Promise<Allowance> {
    const { limit, windowMs, budgetPerHour, isExempt } = this.options;
    if (limit === 0 || isExempt(userId)) return { allowed: true };
    const budget = budgetPerHour > 0 ? { limit: budgetPerHour, windowMs: HOUR_MS } : undefined;
    const { count, resetAt, slow, spent } = await this.counter.add(userId, 1, windowMs, budget);
    if (budget && spent === budget.limit + 1) {
      await this.alarm.budgetExceeded(budget.limit).catch((error: unknown) => {
        this.log.warn({ err: error }, "the lookup budget's alert could not be sent");
      });
    }
    return this.allowance(count, resetAt, slow);
  }

  /**
   * Whether the user is limited now (a lookup of theirs was refused in this window), nothing
   * taken: what they looked up before (a customer kept for the shop) is read from the provider
   * again only while they are not, so that the limit bounds those reads too.
   */
  async check(userId: number): Promise<Allowance> {
    const { limit, isExempt } = this.options;
    if (limit === 0 || isExempt(userId)) return { allowed: true };
    const { count, resetAt, slow } = await this.counter.peek(userId);
    return this.allowance(count, resetAt, slow);
  }

  private allowance(count: number, resetAt: number, slow: boolean): Allowance {
    const allowed = count <= (slow ? slowLimit(this.options.limit) : this.options.limit);
    return allowed ? { allowed: true } : { allowed: false, retryAt: resetAt };
  }

  /** The code was not found: it costs the rest of a miss. */
  async missed(userId: number): Promise<void> {
    const { limit, windowMs, isExempt } = this.options;
    if (limit === 0 || isExempt(userId)) return;
    await this.counter.add(userId, MISS_COST - 1, windowMs, undefined);
  }
}
