import type { StorageAdapter } from "grammy";
import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";

/**
 * Sessions in Redis, one key per chat. grammY writes back every session it read; this adapter
 * skips the write when nothing changed, which keeps an update at one read and at most one write.
 */
export class RedisSessionStorage<T> implements StorageAdapter<T> {
  private readonly lastRead = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async read(chatKey: string): Promise<T | undefined> {
    const raw = await this.redis.get(this.keys.session(chatKey));
    if (raw === null) {
      this.lastRead.delete(chatKey);
      return undefined;
    }
    this.lastRead.set(chatKey, raw);
    return JSON.parse(raw) as T;
  }

  async write(chatKey: string, value: T): Promise<void> {
    const raw = JSON.stringify(value);
    const unchanged = this.lastRead.get(chatKey) === raw;
    this.lastRead.delete(chatKey);
    if (unchanged) return;
    await this.redis.set(this.keys.session(chatKey), raw, "EX", this.ttlSeconds);
  }

  async delete(chatKey: string): Promise<void> {
    this.lastRead.delete(chatKey);
    await this.redis.del(this.keys.session(chatKey));
  }
}
