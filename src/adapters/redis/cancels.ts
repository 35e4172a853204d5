import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";

/**
 * When each chat last sent /cancel, across instances: a provider call that was pending then
 * drops its late result.
 */
export class RedisCancelMarks {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async mark(chatId: number, at: number): Promise<void> {
    await this.redis.set(this.keys.cancelled(chatId), at, "EX", this.ttlSeconds);
  }

  /** True when the chat cancelled at or after `at`. */
  async since(chatId: number, at: number): Promise<boolean> {
    const marked = await this.redis.get(this.keys.cancelled(chatId));
    return marked !== null && Number(marked) >= at;
  }
}
