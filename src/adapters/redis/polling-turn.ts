// Whose turn it is to poll Telegram: one instance holds a short lease and keeps renewing it;
// the others ask every few seconds and take it once it lapsed (its holder died) or was given
// back (its holder stopped). Telegram allows one getUpdates per bot at a time.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { RELEASE } from "./lease.js";

const KEEP = `
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return 0`;

export class RedisPollingTurn {
  private readonly token = randomUUID();

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly leaseMs: number,
  ) {}

  /** Takes the turn when nobody holds it. */
  async take(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, "PX", this.leaseMs, "NX")) === "OK";
  }

  /** Renews the turn; false when somebody else holds it now. */
  async keep(): Promise<boolean> {
    return (await this.redis.eval(KEEP, 1, this.key, this.token, this.leaseMs)) === 1;
  }

  async give(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}
