// Payments in the ledger: one row per payment received (once per method and charge id),
// written in one transaction with the purchase it pays for; one that pays for nothing, or whose
// top-up certainly did not happen, is owed back until its refund is marked done, once.
import { sql, type Transaction } from "kysely";
import type {
  OfferRef,
  PaymentLedger,
  PaymentReceipt,
  ReceivedPayment,
  Refund,
} from "../../domain/payment.js";
import { paysFor } from "../../domain/payment.js";
import type { PaymentMethod, Purchase } from "../../domain/purchase.js";
import { advance } from "../../domain/purchase-machine.js";
import type { LedgerConnection } from "./connection.js";
import { leaseUntil, newLeaseToken, RowLease } from "./lease.js";
import { fromRow, type PurchaseQuery, REFUND_COLUMNS, refundOf, toRow } from "./rows.js";
import type { LedgerTables } from "./schema.js";

/**
 * The payment ledger, and what the purchase store built on it shares (purchase-store.ts: one
 * object is both ports, on one connection): purchases read, and the events of their phases.
 */
export class LedgerPayments implements PaymentLedger {
  /**
   * @param actor who writes (this instance), named in every event
   */
  constructor(
    protected readonly ledger: Pick<LedgerConnection, "run" | "db">,
    protected readonly actor: string,
  ) {}

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
        const offers = purchase
          ? await tx
              .selectFrom("payment_offers")
              .select(["method", "handle"])
              .where("purchase_id", "=", purchase.id)
              .orderBy("offered_at", "desc")
              .execute()
          : [];
        const offered = new Set(offers.map((offer) => offer.method as PaymentMethod));
        const applies = purchase !== null && paysFor(purchase, payment, offered);
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
        const asked = purchase.payment;
        if (asked && asked.method !== payment.method) {
          // Paid on an offer withdrawn by a switch: that offer becomes the purchase's again
          // (the one it replaced is withdrawn, and looked up should it be paid too).
          const paidOn =
            offers.find((o) => o.method === payment.method && o.handle === payment.charge.id) ??
            offers.find((o) => o.method === payment.method);
          asked.method = payment.method;
          if (paidOn) asked.offer = paidOn.handle;
          else delete asked.offer;
        }
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
        .where("id", "in", (eb) =>
          eb
            .selectFrom("payment_offers")
            .select("purchase_id")
            .where("method", "=", method)
            .where("handle", "=", handle),
        ),
    );
  }

  async offersToLook(
    methods: PaymentMethod[],
    count: number,
    nextLookMs: number,
  ): Promise<OfferRef[]> {
    if (methods.length === 0) return [];
    const rows = await this.ledger.run((db) =>
      db
        .updateTable("payment_offers")
        .set({ next_look_at: sql<Date>`now() + ${`${nextLookMs} milliseconds`}::interval` })
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple("purchase_id", "method", "handle"),
            "in",
            selectFrom("payment_offers")
              .select(["purchase_id", "method", "handle"])
              .where("method", "in", methods)
              .where("withdrawn_at", "is not", null)
              .where("closed_at", "is", null)
              .where("next_look_at", "<=", sql<Date>`now()`)
              .orderBy("next_look_at")
              .limit(count)
              .forUpdate()
              .skipLocked()
              // biome-ignore lint/suspicious/noExplicitAny: Kysely types a subquery tuple loosely
              .$castTo<any>(),
          ),
        )
        .returning(["purchase_id", "method", "handle"])
        .execute(),
    );
    return rows.map((row) => ({
      purchaseId: row.purchase_id,
      method: row.method as PaymentMethod,
      handle: row.handle,
    }));
  }

  async closeOffer(offer: OfferRef): Promise<void> {
    await this.ledger.run((db) =>
      db
        .updateTable("payment_offers")
        .set({ closed_at: sql<Date>`now()` })
        .where("purchase_id", "=", offer.purchaseId)
        .where("method", "=", offer.method)
        .where("handle", "=", offer.handle)
        .where("withdrawn_at", "is not", null)
        .execute(),
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

  protected async event(
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

  protected async one(query: PurchaseQuery): Promise<Purchase | null> {
    const [found] = await this.many((db) => query(db).limit(1));
    return found ?? null;
  }

  protected async many(query: PurchaseQuery): Promise<Purchase[]> {
    const rows = await this.ledger.run((db) => query(db).selectAll().execute());
    return rows.map(fromRow);
  }
}
