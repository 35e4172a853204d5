import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";

const REMEMBER_SECONDS = 86_400;

/**
 * Which Telegram updates were taken already, by this or another instance: Telegram and the
 * runner give no exactly-once delivery.
 */
export class RedisUpdateLog {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** True the first time an update id is seen (it is remembered for a day). */
  async firstDelivery(updateId: number): Promise<boolean> {
    const key = this.keys.update(updateId);
    return (await this.redis.set(key, "1", "EX", REMEMBER_SECONDS, "NX")) === "OK";
  }
}
