// Purchases in the ledger: one row each, its checkout tokens, and an event for every change of
// phase, written in the same statement as the change. The database holds the rules it can:
// one row per intent, one purchase in flight per buyer, a token bound to one purchase.
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type {
  Claim,
  Creation,
  Purchase,
  PurchasePhase,
  PurchaseStore,
  TellingHold,
} from "../../domain/purchase.js";
import { BuyerBusyError, isOpen, StaleWriteError, TOLD_PHASES } from "../../domain/purchase.js";
import { leaseFree, leaseUntil, newLeaseToken, RowLease } from "./lease.js";
import { LedgerPayments } from "./payment-ledger.js";
import { toRow } from "./rows.js";
import type { LedgerTables } from "./schema.js";

/** The purchase store; the payment ledger too (payment-ledger.ts), as one object is both. */
export class LedgerPurchases extends LedgerPayments implements PurchaseStore {
  /** One statement: the row and its first event, or nothing when the intent or buyer is taken. */
  async create(purchase: Purchase, leaseMs: number): Promise<Creation> {
    const token = newLeaseToken();
    const created = await this.ledger.run((db) =>
      db
        .with("created", (q) =>
          q
            .insertInto("purchases")
            .values({
              ...toRow(purchase),
              version: 1,
              // One awaiting payment is looked at when its window closes.
              due_at: new Date(purchase.payment?.expiresAt ?? purchase.createdAt),
              lease_owner: token,
              lease_until: leaseUntil(leaseMs),
            })
            .onConflict((conflict) => conflict.doNothing())
            .returning("id"),
        )
        .insertInto("purchase_events")
        .columns(["purchase_id", "from_phase", "to_phase", "told", "reason", "actor"])
        .expression((eb) =>
          eb
            .selectFrom("created")
            .select([
              "created.id",
              sql<null>`null`.as("from_phase"),
              eb.val(purchase.phase).as("to_phase"),
              eb.val(purchase.told).as("told"),
              eb.val(purchase.reason).as("reason"),
              eb.val(this.actor).as("actor"),
            ]),
        )
        .returning("purchase_id")
        .executeTakeFirst(),
    );
    if (created) {
      purchase.version = 1;
      return {
        kind: "created",
        lease: new RowLease(() => this.ledger.db, purchase.id, token, leaseMs),
      };
    }
    const taken = await this.ledger.run((db) =>
      db.selectFrom("purchases").select("id").where("id", "=", purchase.id).executeTakeFirst(),
    );
    return { kind: taken ? "duplicate" : "busy" };
  }

  async takeCheckout(purchase: Purchase): Promise<boolean> {
    const checkoutId = purchase.checkout?.id;
    if (!checkoutId) throw new Error("no checkout token to take");
    const written = await this.ledger
      .run((db) => this.write(db, purchase, undefined, checkoutId))
      .catch(refuseBusy(purchase));
    if (written) return true;
    await this.refuseStale(purchase);
    return false;
  }

  async save(purchase: Purchase, dueAt?: number): Promise<void> {
    const written = await this.ledger
      .run((db) => this.write(db, purchase, dueAt))
      .catch(refuseBusy(purchase));
    if (written) return;
    await this.refuseStale(purchase);
    throw new Error("no such purchase in the ledger");
  }

  async postpone(purchase: Purchase, dueAt: number): Promise<boolean> {
    const moved = await this.ledger.run((db) =>
      db
        .updateTable("purchases")
        .set({ due_at: new Date(dueAt) })
        .where("id", "=", purchase.id)
        .where("version", "=", purchase.version)
        .where("due_at", "is not", null)
        .executeTakeFirst(),
    );
    return moved.numUpdatedRows === 1n;
  }

  async checkouts(purchaseId: string): Promise<string[]> {
    const rows = await this.ledger.run((db) =>
      db
        .selectFrom("purchase_checkouts")
        .select("checkout_id")
        .where("purchase_id", "=", purchaseId)
        .orderBy("taken_at")
        .orderBy("checkout_id")
        .execute(),
    );
    return rows.map((row) => row.checkout_id);
  }

  /** A write that changed nothing: StaleWriteError when the row is at another version. */
  private async refuseStale(purchase: Purchase): Promise<void> {
    const row = await this.ledger.run((db) =>
      db.selectFrom("purchases").select("version").where("id", "=", purchase.id).executeTakeFirst(),
    );
    if (row && row.version !== purchase.version) throw new StaleWriteError(purchase.id);
  }

  get(id: string): Promise<Purchase | null> {
    return this.one((db) => db.selectFrom("purchases").where("id", "=", id));
  }

  byCheckout(checkoutId: string): Promise<Purchase | null> {
    return this.one((db) =>
      db
        .selectFrom("purchases")
        .where("id", "=", (eb) =>
          eb
            .selectFrom("purchase_checkouts")
            .select("purchase_id")
            .where("checkout_id", "=", checkoutId),
        ),
    );
  }

  byReference(reference: string): Promise<Purchase | null> {
    return this.one((db) => db.selectFrom("purchases").where("reference", "=", reference));
  }

  byTransaction(txnId: string): Promise<Purchase | null> {
    return this.one((db) =>
      db.selectFrom("purchases").where("txn_id", "=", txnId).orderBy("created_at", "desc"),
    );
  }

  claimDue(now: number, leaseMs: number, skip: string[] = []): Promise<Claim | null> {
    return this.claim(leaseMs, skip, (db) =>
      db
        .selectFrom("purchases")
        .select("id")
        .where("due_at", "<=", new Date(now))
        .where(leaseFree)
        .orderBy("due_at"),
    );
  }

  claimUntold(leaseMs: number, skip: string[] = []): Promise<Claim | null> {
    return this.claim(leaseMs, skip, (db) =>
      db
        .selectFrom("purchases")
        .select("id")
        .where("phase", "in", [...TOLD_PHASES])
        .where(sql<boolean>`told IS DISTINCT FROM phase`)
        .where(leaseFree)
        .orderBy("updated_at"),
    );
  }

  async holdToTell(id: string, phase: PurchasePhase, leaseMs: number): Promise<TellingHold> {
    const token = newLeaseToken();
    const taken = await this.ledger.run((db) =>
      db
        .updateTable("purchases")
        .set({ lease_owner: token, lease_until: leaseUntil(leaseMs) })
        .where("id", "=", id)
        .where("phase", "=", phase)
        .where(sql<boolean>`told IS DISTINCT FROM phase`)
        .where(leaseFree)
        .returning("id")
        .executeTakeFirst(),
    );
    if (taken) return new RowLease(() => this.ledger.db, id, token, leaseMs);
    const row = await this.ledger.run((db) =>
      db.selectFrom("purchases").select(["phase", "told"]).where("id", "=", id).executeTakeFirst(),
    );
    if (row?.phase !== phase) return "elsewhere";
    return row.told === phase ? "told" : "held";
  }

  async nextDue(): Promise<number | null> {
    const row = await this.ledger.run((db) =>
      db
        .selectFrom("purchases")
        .select(sql<Date | null>`min(greatest(due_at, coalesce(lease_until, due_at)))`.as("at"))
        .where("due_at", "is not", null)
        .executeTakeFirst(),
    );
    return row?.at ? new Date(row.at).getTime() : null;
  }

  recent(count: number, options: { start?: number; codes?: string[] } = {}): Promise<Purchase[]> {
    const codes = options.codes?.map((code) => code.toLowerCase());
    return this.many((db) => {
      let query = db.selectFrom("purchases");
      if (codes && codes.length > 0) {
        query = query.where((eb) =>
          eb.or([
            eb(sql`lower(customer_id)`, "in", codes),
            eb(sql`lower(connection_id)`, "in", codes),
          ]),
        );
      }
      return query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .offset(options.start ?? 0)
        .limit(count);
    });
  }

  ofBuyer(buyer: number, count: number): Promise<Purchase[]> {
    return this.many((db) =>
      db
        .selectFrom("purchases")
        .where("buyer", "=", buyer)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(count),
    );
  }

  async renewalsAfterReminders(): Promise<number> {
    const row = await this.ledger.run((db) =>
      db
        .selectFrom("purchases")
        .select((eb) => eb.fn.countAll<string>().as("count"))
        .where("phase", "=", "charged")
        .where("from_reminder", "=", true)
        .executeTakeFirst(),
    );
    return Number(row?.count ?? 0);
  }

  /**
   * Takes in a record written before the ledger (by the previous release, in Redis) with the
   * checkout tokens it used; false when the ledger has it already.
   */
  adopt(purchase: Purchase, checkouts: string[]): Promise<boolean> {
    return this.ledger.run((db) =>
      db.transaction().execute(async (tx) => {
        const inserted = await tx
          .insertInto("purchases")
          .values({
            ...toRow(purchase),
            due_at: isOpen(purchase) ? new Date() : null,
          })
          .onConflict((conflict) => conflict.column("id").doNothing())
          .returning("id")
          .executeTakeFirst();
        if (!inserted) return false;
        purchase.version = 1;
        for (const checkoutId of checkouts) {
          await tx
            .insertInto("purchase_checkouts")
            .values({
              checkout_id: checkoutId,
              purchase_id: purchase.id,
              taken_at: new Date(purchase.updatedAt),
            })
            .onConflict((conflict) => conflict.doNothing())
            .execute();
        }
        await this.event(tx, purchase, null);
        return true;
      }),
    );
  }

  /**
   * The row as the purchase now is, over the version the copy was read at, and an event when its
   * phase or "told" moved: one statement, so one round trip and atomic by itself. With `bind`,
   * the checkout token is bound to this purchase first, and nothing is written when another
   * purchase has it. True when written; the copy's version then moves on with the row's.
   */
  private async write(
    db: Kysely<LedgerTables>,
    purchase: Purchase,
    dueAt?: number,
    bind?: string,
  ): Promise<boolean> {
    const due = dueAt === undefined ? null : new Date(dueAt);
    const current = (eb: ExpressionBuilder<LedgerTables, "purchases">) =>
      eb.and([eb("id", "=", purchase.id), eb("version", "=", purchase.version)]);
    const written = await db
      .with("bound", (q) =>
        q
          .insertInto("purchase_checkouts")
          .columns(["checkout_id", "purchase_id", "taken_at"])
          .expression(
            q
              .selectNoFrom((eb) => [
                eb.val(bind ?? null).as("checkout_id"),
                eb.val(purchase.id).as("purchase_id"),
                sql<Date>`now()`.as("taken_at"),
              ])
              // Without a token to bind, or over a stale copy, nothing is inserted.
              .where(sql<boolean>`${bind ?? null}::text IS NOT NULL`)
              .where((eb) => eb.exists(eb.selectFrom("purchases").select("id").where(current))),
          )
          .onConflict((conflict) => conflict.doNothing())
          .returning("purchase_id"),
      )
      .with("before", (q) =>
        q
          .selectFrom("purchases")
          .select(["id", "phase", "told", "due_at", "version"])
          .where(current)
          .$if(bind !== undefined, (select) =>
            // The token is this purchase's: just bound, or bound before by this one.
            select.where((eb) =>
              eb.or([
                eb.exists(eb.selectFrom("bound").select("bound.purchase_id")),
                eb.exists(
                  eb
                    .selectFrom("purchase_checkouts")
                    .select("purchase_checkouts.purchase_id")
                    .where("purchase_checkouts.checkout_id", "=", bind ?? "")
                    .where("purchase_checkouts.purchase_id", "=", purchase.id),
                ),
              ]),
            ),
          )
          .forUpdate(),
      )
      .with("changed", (q) =>
        q
          .updateTable("purchases")
          .set({
            ...toRow(purchase),
            version: sql<number>`before.version + 1`,
            due_at: isOpen(purchase)
              ? sql<Date>`coalesce(${due}::timestamptz, before.due_at, now())`
              : null,
          })
          .from("before")
          .whereRef("purchases.id", "=", "before.id")
          .returning(["before.phase as from_phase", "before.told as from_told"]),
      )
      // A purchase owed back owes its payment: marked in the same statement.
      .with("owed", (q) =>
        q
          .updateTable("payments")
          .set({ refund: "due", refund_due_at: sql<Date>`now()`, refund_reason: purchase.reason })
          .where("purchase_id", "=", purchase.id)
          .where("applied", "=", true)
          .where("refund", "=", "none")
          .where(sql<boolean>`${purchase.phase}::text = 'refund-due'`)
          .where((eb) => eb.exists(eb.selectFrom("changed").select("changed.from_phase")))
          .returning("payments.id"),
      )
      // Topped up after all (the last look before a refund found it): owed no more.
      .with("settled", (q) =>
        q
          .updateTable("payments")
          .set({ refund: "none", refund_due_at: null, refund_reason: null })
          .where("purchase_id", "=", purchase.id)
          .where("applied", "=", true)
          .where("refund", "=", "due")
          .where(sql<boolean>`${purchase.phase}::text = 'charged'`)
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom("changed")
                .select("changed.from_phase")
                .where("changed.from_phase", "=", "refund-due"),
            ),
          )
          .returning("payments.id"),
      )
      .with("event", (q) =>
        q
          .insertInto("purchase_events")
          .columns(["purchase_id", "from_phase", "to_phase", "told", "reason", "actor"])
          .expression((eb) =>
            eb
              .selectFrom("changed")
              .select([
                eb.val(purchase.id).as("purchase_id"),
                "changed.from_phase",
                eb.val(purchase.phase).as("to_phase"),
                eb.val(purchase.told).as("told"),
                eb.val(purchase.reason).as("reason"),
                eb.val(this.actor).as("actor"),
              ])
              .where(
                sql<boolean>`changed.from_phase IS DISTINCT FROM ${purchase.phase}::text
                  OR changed.from_told IS DISTINCT FROM ${purchase.told}::text`,
              ),
          )
          .returning("purchase_id"),
      )
      .selectFrom("changed")
      .select(sql<string>`count(*)`.as("rows"))
      .executeTakeFirst();
    if (Number(written?.rows ?? 0) !== 1) return false;
    purchase.version += 1;
    return true;
  }

  private async claim(
    leaseMs: number,
    skip: string[],
    candidates: (
      db: Kysely<LedgerTables>,
    ) => SelectQueryBuilder<LedgerTables, "purchases", { id: string }>,
  ): Promise<Claim | null> {
    const token = newLeaseToken();
    const claimed = await this.ledger.run((db) =>
      db
        .updateTable("purchases")
        .set({ lease_owner: token, lease_until: leaseUntil(leaseMs) })
        // SKIP LOCKED: replicas claiming at once each take a different purchase.
        .where("id", "=", (eb) =>
          eb
            .selectFrom(
              candidates(db)
                .$if(skip.length > 0, (q) => q.where("id", "not in", skip))
                .limit(1)
                .forUpdate()
                .skipLocked()
                .as("candidate"),
            )
            .select("candidate.id"),
        )
        .returning("id")
        .executeTakeFirst(),
    );
    if (!claimed) return null;
    return {
      id: claimed.id,
      lease: new RowLease(() => this.ledger.db, claimed.id, token, leaseMs),
    };
  }
}

/** The index that keeps one purchase of a buyer in flight (migrations/0001). */
const ONE_IN_FLIGHT = "purchases_one_in_flight_per_buyer";

/** A write refused by ONE_IN_FLIGHT is BuyerBusyError; any other failure is rethrown. */
const refuseBusy =
  (purchase: Purchase) =>
  (error: unknown): never => {
    const { code, constraint, message } = (error ?? {}) as Record<string, unknown>;
    const busy =
      code === "23505" &&
      (constraint === ONE_IN_FLIGHT ||
        (typeof message === "string" && message.includes(ONE_IN_FLIGHT)));
    throw busy ? new BuyerBusyError(purchase.id) : error;
  };
