import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";

/**
 * Values prepared for a chat outside its updates (a purchase running in the background offers
 * a fresh menu), taken into the chat's session by the chat's own next update.
 */
export class RedisDrafts {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async put(chatId: number, id: string, value: unknown): Promise<void> {
    await this.redis.set(this.keys.draft(chatId, id), JSON.stringify(value), "EX", this.ttlSeconds);
  }

  /** The draft, removed from the store; null when there is none (expired, taken, forged). */
  async take(chatId: number, id: string): Promise<unknown> {
    const raw = await this.redis.getdel(this.keys.draft(chatId, id));
    return raw === null ? null : JSON.parse(raw);
  }
}
