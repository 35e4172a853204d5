import type { Redis } from "ioredis";
import type { Lease } from "../../domain/ports.js";
import type { PurchaseGuards } from "../../domain/topup.js";
import type { RedisKeys } from "./keys.js";
import { RedisLease } from "./lease.js";

const INTENT_MEMORY_SECONDS = 86_400;

export class RedisPurchaseGuards implements PurchaseGuards {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async claimIntent(intentId: string): Promise<boolean> {
    const key = this.keys.intent(intentId);
    return (await this.redis.set(key, "1", "EX", INTENT_MEMORY_SECONDS, "NX")) === "OK";
  }

  async releaseIntent(intentId: string): Promise<void> {
    await this.redis.del(this.keys.intent(intentId));
  }

  holdBuyer(buyer: number, ttlMs: number): Promise<Lease | null> {
    return RedisLease.acquire(this.redis, this.keys.purchaseInFlight(buyer), ttlMs);
  }

  holdCheckout(checkoutId: string, ttlMs: number): Promise<Lease | null> {
    return RedisLease.acquire(this.redis, this.keys.checkoutLock(checkoutId), ttlMs);
  }
}
