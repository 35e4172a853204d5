import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";

/**
 * /cancel across instances: when each chat last cancelled, and whether a provider call of its
 * flow is pending. A pending call that sees a later cancel drops its result.
 */
export class RedisCancelMarks {
  /** Chats of this process with a provider call pending. */
  private readonly waiting = new Set<number>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async busy(chatId: number, at: number): Promise<void> {
    this.waiting.add(chatId);
    await this.redis.set(this.keys.flowBusy(chatId), at, "EX", this.ttlSeconds);
  }

  async idle(chatId: number): Promise<void> {
    this.waiting.delete(chatId);
    await this.redis.del(this.keys.flowBusy(chatId));
  }

  /** Whether this process has a provider call of the chat's flow pending. */
  waitsHere(chatId: number): boolean {
    return this.waiting.has(chatId);
  }

  /** Records the cancel; true when a provider call of the chat's flow was pending. */
  async mark(chatId: number, at: number): Promise<boolean> {
    this.waiting.delete(chatId);
    const [, busy] =
      (await this.redis
        .multi()
        .set(this.keys.cancelled(chatId), at, "EX", this.ttlSeconds)
        .getdel(this.keys.flowBusy(chatId))
        .exec()) ?? [];
    return busy?.[1] != null;
  }

  /** True when the chat cancelled at or after `at`. */
  async since(chatId: number, at: number): Promise<boolean> {
    const marked = await this.redis.get(this.keys.cancelled(chatId));
    return marked !== null && Number(marked) >= at;
  }
}
