import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Lease } from "../../domain/ports.js";
import type { LedgerTables } from "./schema.js";

/** `now() + ms`, in the database's clock (one clock for every replica's leases). */
export const leaseUntil = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

export const newLeaseToken = () => randomUUID();

/** A purchase's lease nobody holds: never taken, given back, or lapsed. */
export const leaseFree = sql<boolean>`(lease_until IS NULL OR lease_until <= now())`;

/**
 * The right to work on one purchase: its row's lease columns. Renewed while held; lapses by
 * itself shortly after its holder dies, and the purchase is then due for whoever looks next.
 */
export class RowLease implements Lease {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: () => Kysely<LedgerTables>,
    private readonly id: string,
    private readonly token: string,
    private readonly ttlMs: number,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(50, ttlMs / 3));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    await this.db()
      .updateTable("purchases")
      .set({ lease_until: leaseUntil(this.ttlMs) })
      .where("id", "=", this.id)
      .where("lease_owner", "=", this.token)
      .execute()
      .catch(() => undefined);
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.db()
      .updateTable("purchases")
      .set({ lease_owner: null, lease_until: null })
      .where("id", "=", this.id)
      .where("lease_owner", "=", this.token)
      .execute();
  }
}
