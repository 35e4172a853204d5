import type { Redis } from "ioredis";
import type { LookupCounter } from "../../domain/lookup-limit.js";
import type { RedisKeys } from "./keys.js";

// One round trip, atomic across instances. KEYS: the user's count, the user's slow mark, the
// budget's count. ARGV: cost, the user's window, the budget (0: none), the budget's window.
// The user's window and the budget's start with their first lookup; a window the user starts
// while the budget is exceeded is marked slow for as long as it lasts.
const ADD = `
local cost = tonumber(ARGV[1])
local count = redis.call("INCRBY", KEYS[1], cost)
local ttl = redis.call("PTTL", KEYS[1])
if ttl < 0 then redis.call("PEXPIRE", KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
local spent = 0
local budget = tonumber(ARGV[3])
if budget > 0 then
  spent = redis.call("INCR", KEYS[3])
  if spent == 1 then redis.call("PEXPIRE", KEYS[3], ARGV[4]) end
  if count == cost and spent > budget then redis.call("SET", KEYS[2], "1", "PX", ttl) end
end
return {count, ttl, redis.call("EXISTS", KEYS[2]), spent}`;

// The user's count, its window's time left and the slow mark, as they are (KEYS as ADD's).
const PEEK = `
return {tonumber(redis.call("GET", KEYS[1]) or "0"), redis.call("PTTL", KEYS[1]), redis.call("EXISTS", KEYS[2])}`;

export class RedisLookupCounter implements LookupCounter {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async add(
    userId: number,
    cost: number,
    windowMs: number,
    budget: { limit: number; windowMs: number } | undefined,
  ) {
    const [count, ttl, slow, spent] = (await this.redis.eval(
      ADD,
      3,
      this.keys.lookups(userId),
      this.keys.lookupsSlow(userId),
      this.keys.lookupBudget,
      cost,
      windowMs,
      budget?.limit ?? 0,
      budget?.windowMs ?? 0,
    )) as [number, number, number, number];
    return { count, resetAt: Date.now() + ttl, slow: slow === 1, spent };
  }

  async peek(userId: number) {
    const [count, ttl, slow] = (await this.redis.eval(
      PEEK,
      2,
      this.keys.lookups(userId),
      this.keys.lookupsSlow(userId),
    )) as [number, number, number];
    return { count, resetAt: Date.now() + Math.max(ttl, 0), slow: slow === 1 };
  }
}
