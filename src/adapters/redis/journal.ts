import type { Redis } from "ioredis";
import type { JournalEntry, JournalStore, SettledState } from "../../domain/journal.js";
import type { RedisKeys } from "./keys.js";

const CREATE = `
if redis.call("SET", KEYS[1], ARGV[1], "NX") then
  redis.call("ZADD", KEYS[2], ARGV[2], ARGV[3])
  redis.call("LPUSH", KEYS[3], ARGV[3])
  redis.call("LTRIM", KEYS[3], 0, 999)
  redis.call("SET", KEYS[4], ARGV[3])
  return 1
end
return 0`;

/** The journal in Redis: one JSON string per entry, sorted sets for pending and untold. */
export class RedisJournal implements JournalStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

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

  async byReference(reference: string): Promise<JournalEntry | null> {
    const checkoutId = await this.redis.get(this.keys.journalReference(reference));
    return checkoutId === null ? null : this.get(checkoutId);
  }

  async settle(
    entry: JournalEntry,
    state: SettledState,
    details: Pick<JournalEntry, "transaction" | "failure">,
    now: number,
  ): Promise<JournalEntry> {
    const settled: JournalEntry = { ...entry, ...details, state, updatedAt: now };
    await this.redis
      .multi()
      .set(this.keys.journalEntry(entry.checkoutId), JSON.stringify(settled))
      .zrem(this.keys.journalPending, entry.checkoutId)
      .zadd(this.keys.journalUntold, now, entry.checkoutId)
      .exec();
    return settled;
  }

  async markTold(checkoutId: string): Promise<void> {
    await this.redis.zrem(this.keys.journalUntold, checkoutId);
  }

  pendingSince(olderThan: number, limit = 100): Promise<string[]> {
    return this.since(this.keys.journalPending, olderThan, limit);
  }

  untoldSince(olderThan: number, limit = 100): Promise<string[]> {
    return this.since(this.keys.journalUntold, olderThan, limit);
  }

  /** Two round trips: LRANGE, then one MGET. */
  async recent(count: number, start = 0): Promise<JournalEntry[]> {
    if (count <= 0) return [];
    const ids = await this.redis.lrange(this.keys.journalRecent, start, start + count - 1);
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.keys.journalEntry(id)));
    return raws
      .filter((raw): raw is string => raw !== null)
      .map((raw) => JSON.parse(raw) as JournalEntry);
  }

  private since(key: string, olderThan: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(key, "-inf", olderThan, "LIMIT", 0, limit);
  }
}
