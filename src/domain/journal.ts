import type { Redis } from "ioredis";
import type { BillingPeriod, ServiceKind } from "./model.js";
import type { RedisKeys } from "./redis-keys.js";

/**
 * pending: written before the top-up call; its outcome is not known yet.
 * done: the provider confirmed the transaction. not-charged: verified that nothing happened.
 * failed: refused or never sent; nothing happened.
 */
export type JournalState = "pending" | "done" | "not-charged" | "failed";

/** One top-up attempt, keyed by its checkout id. Everything needed to tell the user later. */
export interface JournalEntry {
  checkoutId: string;
  /** One user intent may take two attempts (a refused token is replaced once). */
  intentId: string;
  /** Our reference sent as udf1 on v1.0.1 (at most 30 characters). */
  reference: string;
  userId: number;
  chatId: number;
  language: string;
  cuid: string;
  customerName: string;
  service: ServiceKind;
  connectionId: string;
  bouquetCode: string;
  bouquetName: string;
  period: BillingPeriod | null;
  amount: number;
  /** When the checkout token was issued (ms); reconciliation needs its age. */
  checkoutIssuedAt: number;
  createdAt: number;
  updatedAt: number;
  state: JournalState;
  transaction?: { txnId: string; amount: number; date: number };
  failure?: { kind: string; code?: string };
}

const CREATE = `
if redis.call("SET", KEYS[1], ARGV[1], "NX") then
  redis.call("ZADD", KEYS[2], ARGV[2], ARGV[3])
  redis.call("LPUSH", KEYS[3], ARGV[3])
  redis.call("LTRIM", KEYS[3], 0, 999)
  redis.call("SET", KEYS[4], ARGV[3])
  return 1
end
return 0`;

/** The top-up journal in Redis: the durable record that makes top-ups exactly-once. */
export class Journal {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * Writes a pending entry, atomically with its place in the pending index. Returns false when
   * an entry for this checkout id exists already: then the top-up must not be called again.
   */
  async create(entry: JournalEntry): Promise<boolean> {
    const created = await this.redis.eval(
      CREATE,
      4,
      this.keys.journalEntry(entry.checkoutId),
      this.keys.journalPending,
      this.keys.journalRecent,
      this.keys.journalReference(entry.reference),
      JSON.stringify(entry),
      entry.createdAt,
      entry.checkoutId,
    );
    return created === 1;
  }

  async get(checkoutId: string): Promise<JournalEntry | null> {
    const raw = await this.redis.get(this.keys.journalEntry(checkoutId));
    return raw === null ? null : (JSON.parse(raw) as JournalEntry);
  }

  /**
   * Records the final state, takes the entry out of the pending index and puts it in the
   * undelivered one until {@link delivered} says the user has been told.
   */
  async settle(
    entry: JournalEntry,
    state: Exclude<JournalState, "pending">,
    details: Pick<JournalEntry, "transaction" | "failure">,
    now: number,
  ): Promise<JournalEntry> {
    const settled: JournalEntry = { ...entry, ...details, state, updatedAt: now };
    await this.redis
      .multi()
      .set(this.keys.journalEntry(entry.checkoutId), JSON.stringify(settled))
      .zrem(this.keys.journalPending, entry.checkoutId)
      .zadd(this.keys.journalUndelivered, now, entry.checkoutId)
      .exec();
    return settled;
  }

  /** Checkout ids of entries pending since before `olderThan` (ms), oldest first. */
  pendingSince(olderThan: number, limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.journalPending, "-inf", olderThan, "LIMIT", 0, limit);
  }

  async delivered(checkoutId: string): Promise<void> {
    await this.redis.zrem(this.keys.journalUndelivered, checkoutId);
  }

  /** Settled entries whose outcome the user has not been told yet, settled before `olderThan`. */
  undeliveredSince(olderThan: number, limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(
      this.keys.journalUndelivered,
      "-inf",
      olderThan,
      "LIMIT",
      0,
      limit,
    );
  }

  async byReference(reference: string): Promise<JournalEntry | null> {
    const checkoutId = await this.redis.get(this.keys.journalReference(reference));
    return checkoutId === null ? null : this.get(checkoutId);
  }

  /**
   * Up to `count` entries from the recent list (the last 1000 created), newest first, skipping
   * the first `start`: two round trips (LRANGE, then one MGET).
   */
  async recent(count: number, start = 0): Promise<JournalEntry[]> {
    if (count <= 0) return [];
    const ids = await this.redis.lrange(this.keys.journalRecent, start, start + count - 1);
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.keys.journalEntry(id)));
    return raws
      .filter((raw): raw is string => raw !== null)
      .map((raw) => JSON.parse(raw) as JournalEntry);
  }
}
