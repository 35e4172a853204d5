import type { Redis } from "ioredis";
import type { AlertClaims } from "../../domain/payment.js";
import type { LowBalanceLatch } from "../../domain/provider-balance.js";
import type { AlertLedger } from "../../domain/provider-health.js";
import type { RedisKeys } from "./keys.js";

// KEYS: the alert of this kind, the outage on record. ARGV: kind, ttl.
const CLAIM = `
if redis.call("SET", KEYS[1], "1", "PX", ARGV[2], "NX") then
  redis.call("SET", KEYS[2], ARGV[1])
  return 1
end
return 0`;
// KEYS: the outage on record, then every alert kind's key.
const END = `
if redis.call("DEL", KEYS[1]) == 1 then
  redis.call("DEL", KEYS[2], KEYS[3])
  return 1
end
return 0`;

export class RedisAlertLedger implements AlertLedger {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async claim(kind: "token-refused" | "down", ttlMs: number): Promise<boolean> {
    const claimed = await this.redis.eval(
      CLAIM,
      2,
      this.keys.alert(kind),
      this.keys.alertOutage,
      kind,
      ttlMs,
    );
    return claimed === 1;
  }

  async endOutage(): Promise<boolean> {
    const ended = await this.redis.eval(
      END,
      3,
      this.keys.alertOutage,
      this.keys.alert("token-refused"),
      this.keys.alert("down"),
    );
    return ended === 1;
  }
}

/** A low-balance alert (kind), sent by the first replica to see the balance low; no expiry. */
export class RedisLowBalanceLatch implements LowBalanceLatch {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly kind: "balance-low" | "balance-stop",
  ) {}

  async fall(): Promise<boolean> {
    return (await this.redis.set(this.keys.alert(this.kind), "1", "NX")) === "OK";
  }

  async rise(): Promise<void> {
    await this.redis.del(this.keys.alert(this.kind));
  }
}

/** Alerts said once across replicas (the payments' alarm): the first to claim a subject says it. */
export class RedisAlertClaims implements AlertClaims {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async claim(subject: string, ttlMs: number): Promise<boolean> {
    const key = this.keys.alert(`payment:${subject}`);
    return (await this.redis.set(key, "1", "PX", ttlMs, "NX")) === "OK";
  }
}
