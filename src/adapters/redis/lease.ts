import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Lease } from "../../domain/ports.js";

// KEYS[1] the lease; KEYS[2] a sorted set whose member ARGV[3] is due when the lease lapses.
const ACQUIRE = `
if redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "NX") then
  if KEYS[2] then redis.call("ZADD", KEYS[2], "XX", ARGV[4], ARGV[3]) end
  return 1
end
return 0`;
const RENEW = `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  if KEYS[2] then redis.call("ZADD", KEYS[2], "XX", ARGV[4], ARGV[3]) end
  return 1
end
return 0`;
/** Deletes KEYS[1] when it still holds ARGV[1]: a lease is given back by its holder only. */
export const RELEASE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/** A sorted set in which the leased work's member is due when the lease would lapse. */
export interface DueIndex {
  key: string;
  member: string;
}

/**
 * A Redis lease: held by one process at a time, renewed while the work goes on, and gone by
 * itself shortly after its holder dies, so that another instance can take the work over.
 */
export class RedisLease implements Lease {
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly redis: Redis,
    private readonly keys: string[],
    private readonly token: string,
    private readonly ttlMs: number,
    private readonly member: string,
  ) {}

  /** Takes the lease, or returns `null` when somebody else holds it. */
  static async acquire(
    redis: Redis,
    key: string,
    ttlMs: number,
    due?: DueIndex,
  ): Promise<RedisLease | null> {
    const token = randomUUID();
    const keys = due ? [key, due.key] : [key];
    const member = due?.member ?? "";
    const args = [token, ttlMs, member, Date.now() + ttlMs];
    if ((await redis.eval(ACQUIRE, keys.length, ...keys, ...args)) !== 1) return null;
    const lease = new RedisLease(redis, keys, token, ttlMs, member);
    lease.timer = setInterval(() => void lease.renew(), Math.max(50, ttlMs / 3));
    lease.timer.unref();
    return lease;
  }

  /** Wraps a lease taken by a script of the caller's (token, key and index as above). */
  static adopt(redis: Redis, token: string, key: string, ttlMs: number, due: DueIndex): RedisLease {
    const lease = new RedisLease(redis, [key, due.key], token, ttlMs, due.member);
    lease.timer = setInterval(() => void lease.renew(), Math.max(50, ttlMs / 3));
    lease.timer.unref();
    return lease;
  }

  private async renew(): Promise<void> {
    const args = [this.token, this.ttlMs, this.member, Date.now() + this.ttlMs];
    await this.redis.eval(RENEW, this.keys.length, ...this.keys, ...args).catch(() => undefined);
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.eval(RELEASE, 1, this.keys[0] as string, this.token);
  }
}
