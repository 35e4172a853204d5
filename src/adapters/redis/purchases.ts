import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Lease } from "../../domain/ports.js";
import { isOpen, isUntold, type Purchase, type PurchaseStore } from "../../domain/purchase.js";
import type { RedisKeys } from "./keys.js";
import { type DueIndex, RedisLease } from "./lease.js";

const RECENT_KEPT = 1_000;
/** Each buyer's latest purchases, for /history. */
const OF_BUYER_KEPT = 10;

// KEYS: record, lease, open, recent, buyer's. ARGV: json, id, lease token, lease ms, due at.
const CREATE = `
if not redis.call("SET", KEYS[1], ARGV[1], "NX") then return 0 end
redis.call("SET", KEYS[2], ARGV[3], "PX", ARGV[4])
redis.call("ZADD", KEYS[3], ARGV[5], ARGV[2])
redis.call("LPUSH", KEYS[4], ARGV[2])
redis.call("LTRIM", KEYS[4], 0, ${RECENT_KEPT - 1})
redis.call("LPUSH", KEYS[5], ARGV[2])
redis.call("LTRIM", KEYS[5], 0, ${OF_BUYER_KEPT - 1})
return 1`;

// KEYS: record, open, untold, reference index, transaction index, checkout index (optional).
// ARGV: json, id, open (0/1), due at ("" = keep, or now when new), untold (0/1), now.
const SAVE = `
if KEYS[6] then
  local owner = redis.call("GET", KEYS[6])
  if owner and owner ~= ARGV[2] then return 0 end
  redis.call("SET", KEYS[6], ARGV[2])
end
redis.call("SET", KEYS[1], ARGV[1])
if ARGV[3] == "1" then
  if ARGV[4] == "" then redis.call("ZADD", KEYS[2], "NX", ARGV[6], ARGV[2])
  else redis.call("ZADD", KEYS[2], ARGV[4], ARGV[2]) end
else
  redis.call("ZREM", KEYS[2], ARGV[2])
end
if ARGV[5] == "1" then redis.call("ZADD", KEYS[3], "NX", ARGV[6], ARGV[2])
else redis.call("ZREM", KEYS[3], ARGV[2]) end
if KEYS[4] ~= "" then redis.call("SET", KEYS[4], ARGV[2]) end
if KEYS[5] ~= "" then redis.call("SET", KEYS[5], ARGV[2]) end
return 1`;

/**
 * Purchases in Redis: one JSON record each, indices by checkout id, reference and the
 * provider's transaction id (the one on the receipt), a sorted set
 * of open purchases by the time they are due, one of untold outcomes, and the latest 1000.
 */
export class RedisPurchases implements PurchaseStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(purchase: Purchase, leaseMs: number): Promise<Lease | null> {
    const token = randomUUID();
    const lease = this.keys.purchaseLease(purchase.id);
    const created = await this.redis.eval(
      CREATE,
      5,
      this.keys.purchase(purchase.id),
      lease,
      this.keys.purchasesOpen,
      this.keys.purchasesRecent,
      this.keys.purchasesOfBuyer(purchase.buyer),
      JSON.stringify(purchase),
      purchase.id,
      token,
      leaseMs,
      Date.now() + leaseMs,
    );
    return created === 1
      ? RedisLease.adopt(this.redis, token, lease, leaseMs, this.dueIndex(purchase.id))
      : null;
  }

  takeCheckout(purchase: Purchase): Promise<boolean> {
    return this.write(purchase, undefined, true);
  }

  async save(purchase: Purchase, dueAt?: number): Promise<void> {
    await this.write(purchase, dueAt, false);
  }

  async discard(purchase: Purchase): Promise<void> {
    await this.redis
      .multi()
      .del(this.keys.purchase(purchase.id))
      .zrem(this.keys.purchasesOpen, purchase.id)
      .lrem(this.keys.purchasesRecent, 1, purchase.id)
      .lrem(this.keys.purchasesOfBuyer(purchase.buyer), 1, purchase.id)
      .exec();
  }

  async get(id: string): Promise<Purchase | null> {
    const raw = await this.redis.get(this.keys.purchase(id));
    return raw === null ? null : (JSON.parse(raw) as Purchase);
  }

  byCheckout(checkoutId: string): Promise<Purchase | null> {
    return this.via(this.keys.purchaseByCheckout(checkoutId));
  }

  byReference(reference: string): Promise<Purchase | null> {
    return this.via(this.keys.purchaseByReference(reference));
  }

  byTransaction(txnId: string): Promise<Purchase | null> {
    return this.via(this.keys.purchaseByTransaction(txnId));
  }

  hold(id: string, ttlMs: number): Promise<Lease | null> {
    return RedisLease.acquire(this.redis, this.keys.purchaseLease(id), ttlMs, this.dueIndex(id));
  }

  due(now: number, limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.purchasesOpen, "-inf", now, "LIMIT", 0, limit);
  }

  async nextDue(): Promise<number | null> {
    const [, score] = await this.redis.zrange(this.keys.purchasesOpen, 0, 0, "WITHSCORES");
    return score === undefined ? null : Number(score);
  }

  untold(limit = 100): Promise<string[]> {
    return this.redis.zrange(this.keys.purchasesUntold, 0, limit - 1);
  }

  recent(count: number, start = 0): Promise<Purchase[]> {
    return this.listed(this.keys.purchasesRecent, count, start);
  }

  ofBuyer(buyer: number, count: number): Promise<Purchase[]> {
    return this.listed(this.keys.purchasesOfBuyer(buyer), count, 0);
  }

  /** Two round trips: LRANGE, then one MGET. */
  private async listed(listKey: string, count: number, start: number): Promise<Purchase[]> {
    if (count <= 0) return [];
    const ids = await this.redis.lrange(listKey, start, start + count - 1);
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.keys.purchase(id)));
    return raws
      .filter((raw): raw is string => raw !== null)
      .map((raw) => JSON.parse(raw) as Purchase);
  }

  private async write(
    purchase: Purchase,
    dueAt: number | undefined,
    bindCheckout: boolean,
  ): Promise<boolean> {
    const keys = [
      this.keys.purchase(purchase.id),
      this.keys.purchasesOpen,
      this.keys.purchasesUntold,
      purchase.reference ? this.keys.purchaseByReference(purchase.reference) : "",
      purchase.transaction?.txnId
        ? this.keys.purchaseByTransaction(purchase.transaction.txnId)
        : "",
    ];
    if (bindCheckout && purchase.checkout) {
      keys.push(this.keys.purchaseByCheckout(purchase.checkout.id));
    }
    const written = await this.redis.eval(
      SAVE,
      keys.length,
      ...keys,
      JSON.stringify(purchase),
      purchase.id,
      isOpen(purchase) ? "1" : "0",
      dueAt === undefined ? "" : String(dueAt),
      isUntold(purchase) ? "1" : "0",
      Date.now(),
    );
    return written === 1;
  }

  private async via(indexKey: string): Promise<Purchase | null> {
    const id = await this.redis.get(indexKey);
    return id === null ? null : this.get(id);
  }

  private dueIndex(id: string): DueIndex {
    return { key: this.keys.purchasesOpen, member: id };
  }
}
