// Purchases in the ledger: one row each, its checkout tokens, and an event for every change of
// phase, written in the same statement as the change. The database holds the rules it can:
// one row per intent, one purchase in flight per buyer, a token bound to one purchase.
import {
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  sql,
  type Transaction,
} from "kysely";
import type { ProviderTime, ServiceKind } from "../../domain/model.js";
import type {
  PaymentLedger,
  PaymentReceipt,
  ReceivedPayment,
  Refund,
} from "../../domain/payment.js";
import { paysFor } from "../../domain/payment.js";
import type {
  Claim,
  Creation,
  PaymentMethod,
  Purchase,
  PurchaseStore,
} from "../../domain/purchase.js";
import { isOpen, StaleWriteError, TOLD_PHASES } from "../../domain/purchase.js";
import { advance } from "../../domain/purchase-machine.js";
import type { LedgerConnection } from "./connection.js";
import { leaseUntil, newLeaseToken, RowLease } from "./lease.js";
import type { LedgerTables, PaymentRow, PurchaseRow } from "./schema.js";

export class LedgerPurchases implements PurchaseStore, PaymentLedger {
  /**
   * @param actor who writes (this instance), named in every event
   */
  constructor(
    private readonly ledger: Pick<LedgerConnection, "run" | "db">,
    private readonly actor: string,
  ) {}

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
    const written = await this.ledger.run((db) => this.write(db, purchase, undefined, checkoutId));
    if (written) return true;
    await this.refuseStale(purchase);
    return false;
  }

  async save(purchase: Purchase, dueAt?: number): Promise<void> {
    if (await this.ledger.run((db) => this.write(db, purchase, dueAt))) return;
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
   * One transaction: the payment row (once per charge id), then, when it pays for its
   * purchase, the purchase paid, due at once and leased to the caller; otherwise owed back.
   */
  async receivePayment(payment: ReceivedPayment, leaseMs: number): Promise<PaymentReceipt> {
    const token = newLeaseToken();
    return this.ledger.run((db) =>
      db.transaction().execute(async (tx): Promise<PaymentReceipt> => {
        const row = await tx
          .selectFrom("purchases")
          .selectAll()
          .where("id", "=", payment.purchaseId)
          .forUpdate()
          .executeTakeFirst();
        const purchase = row ? fromRow(row) : null;
        const applies = purchase !== null && paysFor(purchase, payment);
        const inserted = await tx
          .insertInto("payments")
          .values({
            purchase_id: purchase?.id ?? null,
            buyer: purchase?.buyer ?? null,
            method: payment.method,
            currency: payment.currency,
            minor: payment.minor,
            charge_id: payment.charge.id,
            provider_charge_id: payment.charge.providerId,
            received_at: new Date(payment.charge.at),
            applied: applies,
            ...(!applies && { refund: "due", refund_due_at: new Date(), refund_reason: "stray" }),
          })
          .onConflict((conflict) => conflict.columns(["method", "charge_id"]).doNothing())
          .returning(REFUND_COLUMNS)
          .executeTakeFirst();
        if (!inserted) return { kind: "duplicate" };
        if (!purchase || !applies) {
          return {
            kind: "stray",
            refund: refundOf({ ...inserted, language: purchase?.language ?? null }),
          };
        }
        const from = purchase.phase;
        advance(purchase, { type: "pay", charge: payment.charge }, payment.charge.at);
        await tx
          .updateTable("purchases")
          .set({
            ...toRow(purchase),
            version: purchase.version + 1,
            due_at: sql<Date>`now()`,
            lease_owner: token,
            lease_until: leaseUntil(leaseMs),
          })
          .where("id", "=", purchase.id)
          .execute();
        purchase.version += 1;
        await this.event(tx, purchase, from);
        return {
          kind: "applied",
          claim: {
            id: purchase.id,
            lease: new RowLease(() => this.ledger.db, purchase.id, token, leaseMs),
          },
        };
      }),
    );
  }

  awaitingPayment(buyer: number): Promise<Purchase[]> {
    return this.many((db) =>
      db
        .selectFrom("purchases")
        .where("buyer", "=", buyer)
        .where("phase", "=", "awaiting-payment")
        .orderBy("created_at"),
    );
  }

  async refundsDue(count: number): Promise<Refund[]> {
    const rows = await this.ledger.run((db) =>
      db
        .selectFrom("payments")
        .leftJoin("purchases", "purchases.id", "payments.purchase_id")
        .select([...REFUND_COLUMNS, "purchases.language"])
        .where("payments.refund", "=", "due")
        .orderBy("payments.refund_due_at")
        .limit(count)
        .execute(),
    );
    return rows.map(refundOf);
  }

  async refundDueFor(purchaseId: string): Promise<Refund | null> {
    const row = await this.ledger.run((db) =>
      db
        .selectFrom("payments")
        .innerJoin("purchases", "purchases.id", "payments.purchase_id")
        .select([...REFUND_COLUMNS, "purchases.language"])
        .where("payments.purchase_id", "=", purchaseId)
        .where("payments.applied", "=", true)
        .where("payments.refund", "=", "due")
        .executeTakeFirst(),
    );
    return row ? refundOf(row) : null;
  }

  /**
   * One transaction: the refund marked done only where it is due (never twice), and its
   * purchase, when the payment paid for one, refunded with an event naming who did it.
   */
  markRefunded(key: string, by: string, note: string | null): Promise<Refund | null> {
    return this.ledger.run((db) =>
      db.transaction().execute(async (tx) => {
        const done = await tx
          .updateTable("payments")
          .set({
            refund: "refunded",
            refunded_at: sql<Date>`now()`,
            refunded_by: by,
            refund_note: note,
          })
          .where("id", "=", (eb) =>
            eb
              .selectFrom("payments")
              .select("id")
              .where("refund", "=", "due")
              .where((w) => w.or([w("purchase_id", "=", key), w("charge_id", "=", key)]))
              .orderBy("refund_due_at")
              .limit(1),
          )
          .returning([...REFUND_COLUMNS, "applied"])
          .executeTakeFirst();
        if (!done) return null;
        let language: string | null = null;
        if (done.purchase_id !== null) {
          const row = await tx
            .selectFrom("purchases")
            .selectAll()
            .where("id", "=", done.purchase_id)
            .forUpdate()
            .executeTakeFirst();
          language = row?.language ?? null;
          if (row && done.applied && row.phase === "refund-due") {
            const purchase = advance(fromRow(row), { type: "refund" }, Date.now());
            await tx
              .updateTable("purchases")
              .set({ ...toRow(purchase), version: purchase.version + 1, due_at: null })
              .where("id", "=", purchase.id)
              .execute();
            await tx
              .insertInto("purchase_events")
              .values({
                purchase_id: purchase.id,
                from_phase: "refund-due",
                to_phase: "refunded",
                told: purchase.told,
                reason: note,
                actor: by,
              })
              .execute();
          }
        }
        return refundOf({ ...done, language });
      }),
    );
  }

  byOffer(method: PaymentMethod, handle: string): Promise<Purchase | null> {
    return this.one((db) =>
      db
        .selectFrom("purchases")
        .where("payment_method", "=", method)
        .where("payment_offer", "=", handle),
    );
  }

  async countRefundAttempt(paymentId: string): Promise<number | null> {
    const row = await this.ledger.run((db) =>
      db
        .updateTable("payments")
        .set((eb) => ({ refund_attempts: eb("refund_attempts", "+", 1) }))
        .where("id", "=", paymentId)
        .where("refund", "=", "due")
        .returning("refund_attempts")
        .executeTakeFirst(),
    );
    return row ? Number(row.refund_attempts) : null;
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

  private async event(
    tx: Transaction<LedgerTables>,
    purchase: Purchase,
    fromPhase: string | null,
  ): Promise<void> {
    await tx
      .insertInto("purchase_events")
      .values({
        purchase_id: purchase.id,
        from_phase: fromPhase,
        to_phase: purchase.phase,
        told: purchase.told,
        reason: purchase.reason,
        actor: this.actor,
      })
      .execute();
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

  private async one(query: (db: Kysely<LedgerTables>) => Rows): Promise<Purchase | null> {
    const [found] = await this.many((db) => query(db).limit(1));
    return found ?? null;
  }

  private async many(query: (db: Kysely<LedgerTables>) => Rows): Promise<Purchase[]> {
    const rows = await this.ledger.run((db) => query(db).selectAll().execute());
    return rows.map(fromRow);
  }
}

// biome-ignore lint/complexity/noBannedTypes: Kysely's own type for "nothing selected yet"
type Rows = SelectQueryBuilder<LedgerTables, "purchases", {}>;

const leaseFree = sql<boolean>`(lease_until IS NULL OR lease_until <= now())`;

/** renewed_until keeps "not asked yet" (NULL) apart from "asked, unreadable" ({"end": null}). */
function toRow(purchase: Purchase) {
  return {
    id: purchase.id,
    buyer: purchase.buyer,
    language: purchase.language,
    customer_id: purchase.customer.cuid,
    customer_name: purchase.customer.name,
    service: purchase.connection.service,
    connection_id: purchase.connection.id,
    bouquet_code: purchase.bouquet.code,
    bouquet_name: purchase.bouquet.name,
    price: purchase.bouquet.price,
    attempt: purchase.attempt,
    checkout_id: purchase.checkout?.id ?? null,
    checkout_issued_at: purchase.checkout ? new Date(purchase.checkout.issuedAt) : null,
    reference: purchase.reference,
    phase: purchase.phase,
    told: purchase.told,
    reason: purchase.reason,
    refusal_code: purchase.refusal?.code ?? null,
    txn_id: purchase.transaction?.txnId ?? null,
    txn_amount: purchase.transaction?.amount ?? null,
    txn_date: purchase.transaction ? JSON.stringify(purchase.transaction.date) : null,
    renewed_until:
      purchase.renewedUntil === undefined ? null : JSON.stringify({ end: purchase.renewedUntil }),
    status_message: purchase.statusMessage ?? null,
    from_reminder: purchase.fromReminder === true,
    created_at: new Date(purchase.createdAt),
    updated_at: new Date(purchase.updatedAt),
    ...paymentColumns(purchase.payment),
  };
}

function paymentColumns(payment: Purchase["payment"]) {
  return {
    payment_method: payment?.method ?? null,
    payment_currency: payment?.currency ?? null,
    payment_minor: payment?.minor ?? null,
    payment_expires_at: payment ? new Date(payment.expiresAt) : null,
    payment_offer: payment?.offer ?? null,
    payment_charge_id: payment?.charge?.id ?? null,
    payment_provider_charge_id: payment?.charge?.providerId ?? null,
    paid_at: payment?.charge ? new Date(payment.charge.at) : null,
  };
}

function paymentOf(row: Selectable<PurchaseRow>): Purchase["payment"] {
  if (!row.payment_method || !row.payment_currency || row.payment_minor === null) return undefined;
  return {
    method: row.payment_method as PaymentMethod,
    currency: row.payment_currency,
    minor: Number(row.payment_minor),
    expiresAt: new Date(row.payment_expires_at ?? 0).getTime(),
    ...(row.payment_offer !== null && { offer: row.payment_offer }),
    ...(row.payment_charge_id !== null && {
      charge: {
        id: row.payment_charge_id,
        providerId: row.payment_provider_charge_id,
        at: new Date(row.paid_at ?? 0).getTime(),
      },
    }),
  };
}

type RefundRow = Pick<
  Selectable<PaymentRow>,
  | "id"
  | "purchase_id"
  | "buyer"
  | "method"
  | "currency"
  | "minor"
  | "charge_id"
  | "provider_charge_id"
  | "received_at"
  | "refund_due_at"
  | "refunded_at"
  | "refunded_by"
  | "refund_note"
  | "refund_attempts"
> & { language: string | null };

const REFUND_COLUMNS = [
  "payments.id",
  "payments.purchase_id",
  "payments.buyer",
  "payments.method",
  "payments.currency",
  "payments.minor",
  "payments.charge_id",
  "payments.provider_charge_id",
  "payments.received_at",
  "payments.refund_due_at",
  "payments.refunded_at",
  "payments.refunded_by",
  "payments.refund_note",
  "payments.refund_attempts",
] as const;

function refundOf(row: RefundRow): Refund {
  return {
    paymentId: String(row.id),
    purchaseId: row.purchase_id,
    buyer: row.buyer === null ? null : Number(row.buyer),
    language: row.language,
    method: row.method as PaymentMethod,
    currency: row.currency,
    minor: Number(row.minor),
    chargeId: row.charge_id,
    providerChargeId: row.provider_charge_id,
    receivedAt: new Date(row.received_at).getTime(),
    dueSince: new Date(row.refund_due_at ?? row.received_at).getTime(),
    attempts: Number(row.refund_attempts),
    ...(row.refunded_at &&
      row.refunded_by && {
        done: {
          at: new Date(row.refunded_at).getTime(),
          by: row.refunded_by,
          note: row.refund_note,
        },
      }),
  };
}

function fromRow(row: Selectable<PurchaseRow>): Purchase {
  const renewed = row.renewed_until as { end: ProviderTime | null } | null;
  return {
    id: row.id,
    version: Number(row.version),
    buyer: Number(row.buyer),
    language: row.language,
    customer: { cuid: row.customer_id, name: row.customer_name },
    connection: { service: row.service as ServiceKind, id: row.connection_id },
    bouquet: { code: row.bouquet_code, name: row.bouquet_name, price: row.price },
    attempt: row.attempt === 2 ? 2 : 1,
    checkout:
      row.checkout_id && row.checkout_issued_at
        ? { id: row.checkout_id, issuedAt: new Date(row.checkout_issued_at).getTime() }
        : null,
    reference: row.reference,
    phase: row.phase as Purchase["phase"],
    told: row.told as Purchase["told"],
    transaction:
      row.txn_id !== null
        ? {
            txnId: row.txn_id,
            amount: row.txn_amount ?? row.price,
            date: (row.txn_date as ProviderTime | null) ?? null,
          }
        : null,
    ...(renewed && { renewedUntil: renewed.end }),
    ...(row.status_message !== null && { statusMessage: row.status_message }),
    ...(row.from_reminder && { fromReminder: true as const }),
    refusal: row.refusal_code === null ? null : { code: row.refusal_code },
    reason: row.reason as Purchase["reason"],
    createdAt: new Date(row.created_at).getTime(),
    updatedAt: new Date(row.updated_at).getTime(),
    ...withPayment(paymentOf(row)),
  };
}

const withPayment = (payment: Purchase["payment"]) => (payment ? { payment } : {});
