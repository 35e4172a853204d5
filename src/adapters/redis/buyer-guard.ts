import type { Redis } from "ioredis";
import type { Lease } from "../../domain/ports.js";
import type { BuyerGuard } from "../../domain/topup.js";
import type { RedisKeys } from "./keys.js";
import { RedisLease } from "./lease.js";

/** One purchase in flight per buyer, across instances. */
export class RedisBuyerGuard implements BuyerGuard {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  holdBuyer(buyer: number, ttlMs: number): Promise<Lease | null> {
    return RedisLease.acquire(this.redis, this.keys.purchaseInFlight(buyer), ttlMs);
  }
}
