import type { Redis } from "ioredis";
import type { LookupCounter } from "../../domain/lookup-limit.js";
import type { RedisKeys } from "./keys.js";

// One round trip: count, start the window with the first lookup, say when it ends.
const ADD = `
local count = redis.call("INCR", KEYS[1])
if count == 1 then redis.call("PEXPIRE", KEYS[1], ARGV[1]) end
local ttl = redis.call("PTTL", KEYS[1])
if ttl < 0 then redis.call("PEXPIRE", KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

export class RedisLookupCounter implements LookupCounter {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async add(userId: number, windowMs: number): Promise<{ count: number; resetAt: number }> {
    const [count, ttl] = (await this.redis.eval(ADD, 1, this.keys.lookups(userId), windowMs)) as [
      number,
      number,
    ];
    return { count, resetAt: Date.now() + ttl };
  }
}
