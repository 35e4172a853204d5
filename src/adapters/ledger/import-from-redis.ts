// The upgrade from the release that kept purchases in Redis: every purchase record found there
// is taken into the ledger (open ones are then finished by reconciliation as usual) and
// removed from Redis. A record whose Redis lease is held (an instance of the previous release
// is still working on it) is left for a later pass, so that nobody resolves it under its feet.
// Only when that release's indices exist is Redis scanned: one EXISTS at every other start.
//
// One-time: this module, its call at start and the ledger's `adopt` (purchase-store.ts) go once
// every deployment has run this release and its import has finished (no "purchases taken over
// from Redis" line with `left` above 0 after the last one, or none at all).
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Log } from "../../domain/ports.js";
import type { Purchase } from "../../domain/purchase.js";
import { RELEASE } from "../redis/lease.js";
import type { LedgerPurchases } from "./purchase-store.js";

/** The record as the previous release wrote it: the ledger's, plus its earlier checkout ids. */
type RedisPurchase = Purchase & { earlierCheckouts?: string[] };

/**
 * KEYS: open, untold, recent. ARGV: the records' key prefix. The indices go, unless a record
 * listed in `recent` is there: an instance of the previous release created it after the scan,
 * and the indices are how the next start knows to look again.
 */
const DROP_INDICES = `
for _, id in ipairs(redis.call("LRANGE", KEYS[3], 0, -1)) do
  if redis.call("EXISTS", ARGV[1] .. id) == 1 then return 0 end
end
return redis.call("DEL", KEYS[1], KEYS[2], KEYS[3])`;

export class RedisPurchaseImport {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ledger: Pick<LedgerPurchases, "adopt">,
    private readonly log: Log,
    private readonly leaseMs = 30_000,
  ) {}

  /** Imports what can be; returns how many records are still left in Redis (leased). */
  async run(): Promise<number> {
    // The previous release wrote every record together with its place in `recent` (and, while
    // open or untold, in those sets); only dropIndices removes them all.
    if ((await this.redis.exists(...this.indices())) === 0) return 0;
    let imported = 0;
    let left = 0;
    for await (const keys of this.redis.scanStream({
      match: `${this.prefix}purchase:*`,
      count: 500,
    })) {
      for (const key of keys as string[]) {
        if (key.endsWith(":lease")) continue;
        const result = await this.importOne(key.slice(`${this.prefix}purchase:`.length));
        if (result === "imported") imported++;
        if (result === "leased") left++;
      }
    }
    if (left === 0) await this.dropIndices();
    if (imported > 0 || left > 0) {
      this.log.info({ imported, left }, "purchases taken over from Redis into the ledger");
    }
    return left;
  }

  private async importOne(id: string): Promise<"imported" | "leased" | "gone"> {
    const record = `${this.prefix}purchase:${id}`;
    const leaseKey = `${record}:lease`;
    const token = randomUUID();
    if ((await this.redis.set(leaseKey, token, "PX", this.leaseMs, "NX")) !== "OK") return "leased";
    try {
      const raw = await this.redis.get(record);
      if (raw === null) return "gone";
      const { earlierCheckouts = [], ...purchase } = JSON.parse(raw) as RedisPurchase;
      const checkouts = [...earlierCheckouts, ...(purchase.checkout ? [purchase.checkout.id] : [])];
      await this.ledger.adopt(purchase, checkouts);
      const indices = [
        record,
        ...checkouts.map((checkout) => `${this.prefix}purchase-checkout:${checkout}`),
        `${this.prefix}purchases:buyer:${purchase.buyer}`,
      ];
      if (purchase.reference) indices.push(`${this.prefix}purchase-ref:${purchase.reference}`);
      if (purchase.transaction) {
        indices.push(`${this.prefix}purchase-txn:${purchase.transaction.txnId}`);
      }
      await this.redis
        .multi()
        .del(...indices)
        .zrem(`${this.prefix}purchases:open`, id)
        .zrem(`${this.prefix}purchases:untold`, id)
        .exec();
      return "imported";
    } finally {
      await this.redis.eval(RELEASE, 1, leaseKey, token);
    }
  }

  /** Once every record is in the ledger, the indices that pointed at them go too. */
  private async dropIndices(): Promise<void> {
    await this.redis.eval(DROP_INDICES, 3, ...this.indices(), `${this.prefix}purchase:`);
  }

  private indices(): [open: string, untold: string, recent: string] {
    return [
      `${this.prefix}purchases:open`,
      `${this.prefix}purchases:untold`,
      `${this.prefix}purchases:recent`,
    ];
  }
}
