import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Lease } from "../../domain/ports.js";

const RELEASE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;
const RENEW = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`;

/**
 * A Redis lease: held by one process at a time, renewed while the work goes on, and gone by
 * itself shortly after its holder dies, so that another instance can take the work over.
 */
export class RedisLease implements Lease {
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly token: string,
    private readonly ttlMs: number,
  ) {}

  /** Takes the lease, or returns `null` when somebody else holds it. */
  static async acquire(redis: Redis, key: string, ttlMs: number): Promise<RedisLease | null> {
    const token = randomUUID();
    const taken = await redis.set(key, token, "PX", ttlMs, "NX");
    if (taken !== "OK") return null;
    const lease = new RedisLease(redis, key, token, ttlMs);
    lease.timer = setInterval(() => void lease.renew(), Math.max(50, ttlMs / 3));
    lease.timer.unref();
    return lease;
  }

  private async renew(): Promise<void> {
    await this.redis.eval(RENEW, 1, this.key, this.token, this.ttlMs).catch(() => undefined);
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}
