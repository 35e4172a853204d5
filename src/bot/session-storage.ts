import type { StorageAdapter } from "grammy";
import type { Redis } from "ioredis";
import type { RedisKeys } from "../domain/redis-keys.js";
import type { SessionData } from "./context.js";

/**
 * Sessions in Redis, one key per chat. grammY writes back every session it read; this adapter
 * skips the write when nothing changed, which keeps an update at one read and at most one write.
 */
export class RedisSessionStorage implements StorageAdapter<SessionData> {
  private readonly lastRead = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async read(chatKey: string): Promise<SessionData | undefined> {
    const raw = await this.redis.get(this.keys.session(chatKey));
    if (raw === null) {
      this.lastRead.delete(chatKey);
      return undefined;
    }
    this.lastRead.set(chatKey, raw);
    return JSON.parse(raw) as SessionData;
  }

  async write(chatKey: string, value: SessionData): Promise<void> {
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

  /** Changes a chat's session from outside an update (a purchase finishing in the background). */
  async update(chatId: number, change: (session: SessionData) => SessionData): Promise<void> {
    const key = this.keys.session(String(chatId));
    const raw = await this.redis.get(key);
    const next = change(raw === null ? {} : (JSON.parse(raw) as SessionData));
    await this.redis.set(key, JSON.stringify(next), "EX", this.ttlSeconds);
  }
}
