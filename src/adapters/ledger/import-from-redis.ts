// The upgrade from the release that kept purchases in Redis: every purchase record found there
// is taken into the ledger (open ones are then finished by reconciliation as usual) and
// removed from Redis. A record whose Redis lease is held (an instance of the previous release
// is still working on it) is left for a later pass, so that nobody resolves it under its feet.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Log } from "../../domain/ports.js";
import type { Purchase } from "../../domain/purchase.js";
import { RELEASE } from "../redis/lease.js";
import type { LedgerPurchases } from "./purchase-store.js";

/** The record as the previous release wrote it: the ledger's, plus its earlier checkout ids. */
type RedisPurchase = Purchase & { earlierCheckouts?: string[] };

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
    await this.redis.del(
      `${this.prefix}purchases:open`,
      `${this.prefix}purchases:untold`,
      `${this.prefix}purchases:recent`,
    );
  }
}
