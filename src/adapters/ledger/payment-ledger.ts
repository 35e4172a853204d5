// Payments in the ledger: one row per payment received (once per method and charge id),
// written in one transaction with the purchase it pays for; one that pays for nothing, or whose
// top-up certainly did not happen, is owed back until its refund is marked done, once.
import { sql, type Transaction } from "kysely";
import type {
  MarkedRefund,
  OfferRef,
  PaymentLedger,
  PaymentReceipt,
  ReceivedPayment,
  Refund,
  RefundByHand,
  RefundClaim,
  RefundsPage,
  SetAside,
} from "../../domain/payment.js";
import { PaymentRefused, paysFor } from "../../domain/payment.js";
import type { PaymentMethod, Purchase, UnpaidReason } from "../../domain/purchase.js";
import { advance } from "../../domain/purchase-machine.js";
import { type LedgerConnection, refusalOf } from "./connection.js";
import { leaseFree, leaseUntil, newLeaseToken, RowLease } from "./lease.js";
import { fromRow, type PurchaseQuery, REFUND_COLUMNS, refundOf, toRow } from "./rows.js";
import type { LedgerTables } from "./schema.js";
import {
  closeSetAside,
  hasSetAside,
  openSetAside,
  setAside,
  setAsideByReference,
  settleUnsettled,
} from "./set-aside.js";

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
   * Throws PaymentRefused when the database refuses it (asking again would change nothing).
   */
  async receivePayment(payment: ReceivedPayment, leaseMs: number): Promise<PaymentReceipt> {
    try {
      return await this.record(payment, leaseMs);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal !== null) throw new PaymentRefused(refusal);
      throw error;
    }
  }

  private record(payment: ReceivedPayment, leaseMs: number): Promise<PaymentReceipt> {
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
        // Given back in part outside the bot before it paid for anything: the rest is owed.
        const part = payment.refundedOutside;
        const inserted = await tx
          .insertInto("payments")
          .values({
            purchase_id: purchase?.id ?? null,
            buyer: purchase?.buyer ?? null,
            payer: payment.payer ?? null,
            method: payment.method,
            currency: payment.currency,
            minor: payment.minor,
            charge_id: payment.charge.id,
            provider_charge_id: payment.charge.providerId,
            received_at: new Date(payment.charge.at),
            applied: applies,
            ...(!applies && {
              refund: "due",
              refund_due_at: new Date(),
              refund_reason: part ? "refunded-in-part-outside" : "stray",
            }),
            ...(part && {
              outside_refund_seen_at: new Date(),
              outside_refund_minor: part.minor,
            }),
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
        // Ended unpaid, and paid after all (a payment found late): why it had ended is told.
        const late =
          purchase.phase === "unpaid"
            ? ((purchase.reason as UnpaidReason | null) ?? "expired")
            : undefined;
        const asked = purchase.payment;
        // The offer paid (its handle is the charge id, where the system's payments are found
        // by it), else the latest by the method paid.
        const paidOn =
          offers.find((o) => o.method === payment.method && o.handle === payment.charge.id) ??
          (asked?.method === payment.method
            ? undefined
            : offers.find((o) => o.method === payment.method));
        if (
          asked &&
          (asked.method !== payment.method || (paidOn && asked.offer !== paidOn.handle))
        ) {
          // Paid on an offer withdrawn by a switch: that offer becomes the purchase's again
          // (the one it replaced is withdrawn, and looked up should it be paid too).
          asked.method = payment.method;
          if (paidOn) asked.offer = paidOn.handle;
          else delete asked.offer;
          delete asked.offerUntil;
        }
        advance(
          purchase,
          { type: late === undefined ? "pay" : "pay-late", charge: payment.charge },
          payment.charge.at,
        );
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
          ...(late !== undefined && { late }),
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

  async refundsDue(count: number, page: RefundsPage = {}): Promise<Refund[]> {
    const { methods, after } = page;
    const rows = await this.ledger.run((db) => {
      let query = db
        .selectFrom("payments")
        .leftJoin("purchases", "purchases.id", "payments.purchase_id")
        .select([...REFUND_COLUMNS, "purchases.language"])
        .where("payments.refund", "=", "due");
      if (methods) {
        if (methods.length === 0) return Promise.resolve([]);
        query = query.where("payments.method", "in", [...methods]);
      }
      // Keyset: the due time as refundOf reads it (received when never set, in milliseconds
      // like the cursor), then the id.
      const due = sql<Date>`date_trunc('milliseconds', coalesce(payments.refund_due_at, payments.received_at))`;
      if (after) {
        query = query.where(
          sql<boolean>`(${due}, payments.id) > (${new Date(after.dueSince)}, ${after.paymentId})`,
        );
      }
      return query.orderBy(due).orderBy("payments.id").limit(count).execute();
    });
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

  async refundsByReference(reference: string, count: number): Promise<Refund[]> {
    const rows = await this.ledger.run((db) =>
      db
        .selectFrom("payments")
        .leftJoin("purchases", "purchases.id", "payments.purchase_id")
        .select([...REFUND_COLUMNS, "purchases.language"])
        .where("payments.refund", "=", "due")
        .where((w) =>
          w.or([
            w("payments.purchase_id", "=", reference),
            w("payments.charge_id", "=", reference),
            w("payments.provider_charge_id", "=", reference),
          ]),
        )
        .orderBy("payments.refund_due_at")
        .limit(count)
        .execute(),
    );
    return rows.map(refundOf);
  }

  /**
   * One transaction: the refund marked done only where it is due (never twice), and its
   * purchase, when the payment paid for one, refunded with an event naming who did it. The
   * payer's mobile number kept for its offer is erased: nothing more is refunded by it.
   */
  markRefunded(
    paymentId: string,
    by: string,
    note: string | null,
    leaseMs: number,
  ): Promise<MarkedRefund | null> {
    if (!/^\d{1,18}$/.test(paymentId)) return Promise.resolve(null);
    const token = newLeaseToken();
    const marked = this.ledger.run((db) =>
      db.transaction().execute(async (tx) => {
        const done = await tx
          .updateTable("payments")
          .set({
            refund: "refunded",
            refunded_at: sql<Date>`now()`,
            refunded_by: by,
            refund_note: note,
            refund_lease_owner: null,
            refund_lease_until: null,
            refund_sent_at: null,
          })
          .where("id", "=", paymentId)
          .where("refund", "=", "due")
          .returning([...REFUND_COLUMNS, "applied"])
          .executeTakeFirst();
        if (!done) return null;
        let language: string | null = null;
        let purchaseRefunded = false;
        let leased = false;
        if (done.purchase_id !== null) {
          await tx
            .updateTable("payment_offers")
            .set({ payer_mobile: null })
            .where("purchase_id", "=", done.purchase_id)
            .where("method", "=", done.method)
            .where("handle", "=", done.charge_id)
            .where("payer_mobile", "is not", null)
            .execute();
          const row = await tx
            .selectFrom("purchases")
            .selectAll()
            .where("id", "=", done.purchase_id)
            .forUpdate()
            .executeTakeFirst();
          language = row?.language ?? null;
          if (row && done.applied && row.phase === "refund-due") {
            const purchase = advance(fromRow(row), { type: "refund" }, Date.now());
            // Leased to whoever marked it, when free: one teller, not this one and a
            // reconciliation pass that found it untold at the same time.
            const written = await tx
              .updateTable("purchases")
              .set({
                ...toRow(purchase),
                version: purchase.version + 1,
                due_at: null,
                lease_owner: sql`CASE WHEN ${leaseFree} THEN ${token} ELSE lease_owner END`,
                lease_until: sql`CASE WHEN ${leaseFree} THEN ${leaseUntil(leaseMs)} ELSE lease_until END`,
              })
              .where("id", "=", purchase.id)
              .returning("lease_owner")
              .executeTakeFirst();
            purchaseRefunded = true;
            leased = written?.lease_owner === token;
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
        return { refund: refundOf({ ...done, language }), purchaseRefunded, leased };
      }),
    );
    return marked.then((done) => {
      if (!done) return null;
      const { refund, purchaseRefunded, leased } = done;
      if (!purchaseRefunded || !leased || refund.purchaseId === null) {
        return { ...refund, purchaseRefunded };
      }
      return {
        ...refund,
        purchaseRefunded,
        lease: new RowLease(() => this.ledger.db, refund.purchaseId, token, leaseMs),
      };
    });
  }

  async handOverRefund(paymentId: string, why: RefundByHand): Promise<void> {
    await this.ledger.run((db) =>
      db
        .updateTable("payments")
        .set({ refund_by_hand: why, refund_lease_owner: null, refund_lease_until: null })
        .where("id", "=", paymentId)
        .where("refund", "=", "due")
        .execute(),
    );
  }

  async payerMobileFor(paymentId: string): Promise<string | null> {
    const row = await this.ledger.run((db) =>
      db
        .selectFrom("payments")
        .innerJoin("payment_offers", (join) =>
          join
            .onRef("payment_offers.purchase_id", "=", "payments.purchase_id")
            .onRef("payment_offers.method", "=", "payments.method")
            .onRef("payment_offers.handle", "=", "payments.charge_id"),
        )
        .select("payment_offers.payer_mobile")
        .where("payments.id", "=", paymentId)
        .executeTakeFirst(),
    );
    return row?.payer_mobile ?? null;
  }

  /**
   * The first complete number only (never overwritten), and only when the transaction id it
   * came with is the one Khalti's own lookup gave the payment recorded on this offer.
   */
  async keepPayerMobile(offer: OfferRef, transactionId: string, mobile: string): Promise<boolean> {
    const kept = await this.ledger.run((db) =>
      db
        .updateTable("payment_offers")
        .set({ payer_mobile: mobile })
        .where("purchase_id", "=", offer.purchaseId)
        .where("method", "=", offer.method)
        .where("handle", "=", offer.handle)
        .where("payer_mobile", "is", null)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom("payments")
              .select("id")
              .where("method", "=", offer.method)
              .where("charge_id", "=", offer.handle)
              .where("provider_charge_id", "=", transactionId),
          ),
        )
        .returning("handle")
        .executeTakeFirst(),
    );
    return kept !== undefined;
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
    asOf?: number,
  ): Promise<OfferRef[]> {
    if (methods.length === 0) return [];
    const now = asOf === undefined ? sql<Date>`now()` : sql<Date>`${new Date(asOf)}::timestamptz`;
    const rows = await this.ledger.run((db) =>
      db
        .updateTable("payment_offers")
        .set({ next_look_at: sql<Date>`${now} + ${`${nextLookMs} milliseconds`}::interval` })
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple("purchase_id", "method", "handle"),
            "in",
            selectFrom("payment_offers")
              .select(["purchase_id", "method", "handle"])
              .where("method", "in", methods)
              .where("withdrawn_at", "is not", null)
              .where("closed_at", "is", null)
              .where("next_look_at", "<=", now)
              .orderBy("next_look_at")
              .limit(count)
              .forUpdate()
              .skipLocked()
              // biome-ignore lint/suspicious/noExplicitAny: Kysely types a subquery tuple loosely
              .$castTo<any>(),
          ),
        )
        .returning(["purchase_id", "method", "handle", "payable_until"])
        .execute(),
    );
    return rows.map((row) => ({
      purchaseId: row.purchase_id,
      method: row.method as PaymentMethod,
      handle: row.handle,
      payableUntil: row.payable_until === null ? null : new Date(row.payable_until).getTime(),
    }));
  }

  async offerPayableUntil(offer: OfferRef): Promise<number | null> {
    const row = await this.ledger.run((db) =>
      db
        .selectFrom("payment_offers")
        .select("payable_until")
        .where("purchase_id", "=", offer.purchaseId)
        .where("method", "=", offer.method)
        .where("handle", "=", offer.handle)
        .executeTakeFirst(),
    );
    return row?.payable_until ? new Date(row.payable_until).getTime() : null;
  }

  async keepOfferUntil(offer: OfferRef, until: number): Promise<void> {
    await this.ledger.run((db) =>
      db
        .updateTable("payment_offers")
        .set({
          payable_until: sql<Date>`greatest(payable_until, ${new Date(until)}::timestamptz)`,
        })
        .where("purchase_id", "=", offer.purchaseId)
        .where("method", "=", offer.method)
        .where("handle", "=", offer.handle)
        .where("closed_at", "is", null)
        .execute(),
    );
  }

  async lookOfferAt(offer: OfferRef, at: number): Promise<void> {
    await this.ledger.run((db) =>
      db
        .updateTable("payment_offers")
        .set({ next_look_at: new Date(at) })
        .where("purchase_id", "=", offer.purchaseId)
        .where("method", "=", offer.method)
        .where("handle", "=", offer.handle)
        .where("withdrawn_at", "is not", null)
        .where("closed_at", "is", null)
        .execute(),
    );
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

  /**
   * The lease on a refund, taken by one conditional write: free, lapsed, or already `owner`'s;
   * only while the refund is owed through the API (not refunded, not left to a person).
   */
  async claimRefund(paymentId: string, owner: string, ms: number): Promise<RefundClaim> {
    if (!/^\d{1,18}$/.test(paymentId)) return { state: "settled" };
    return this.ledger.run(async (db): Promise<RefundClaim> => {
      const taken = await db
        .updateTable("payments")
        .set({ refund_lease_owner: owner, refund_lease_until: leaseUntil(ms) })
        .where("id", "=", paymentId)
        .where("refund", "=", "due")
        .where("refund_by_hand", "is", null)
        .where((w) =>
          w.or([
            w("refund_lease_owner", "is", null),
            w("refund_lease_owner", "=", owner),
            w("refund_lease_until", "<=", sql<Date>`now()`),
          ]),
        )
        .returning(["refund_attempts", "refund_sent_at"])
        .executeTakeFirst();
      if (taken) {
        return {
          state: "claimed",
          attempts: Number(taken.refund_attempts),
          sent: taken.refund_sent_at !== null,
        };
      }
      const row = await db
        .selectFrom("payments")
        .select(["refund", "refund_by_hand"])
        .where("id", "=", paymentId)
        .executeTakeFirst();
      return { state: row?.refund === "due" && row.refund_by_hand === null ? "held" : "settled" };
    });
  }

  async refundAnswered(paymentId: string, owner: string): Promise<void> {
    await this.ledger.run((db) =>
      db
        .updateTable("payments")
        .set({ refund_sent_at: null })
        .where("id", "=", paymentId)
        .where("refund_lease_owner", "=", owner)
        .execute(),
    );
  }

  async releaseRefund(paymentId: string, owner: string): Promise<void> {
    if (!/^\d{1,18}$/.test(paymentId)) return;
    await this.ledger.run((db) =>
      db
        .updateTable("payments")
        .set({ refund_lease_owner: null, refund_lease_until: null })
        .where("id", "=", paymentId)
        .where("refund_lease_owner", "=", owner)
        .execute(),
    );
  }

  /**
   * Counted only under `owner`'s live lease, which it renews, and only when no earlier call's
   * outcome is unknown; recorded sent (the trigger of 0015 holds both).
   */
  async countRefundAttempt(paymentId: string, owner: string, ms: number): Promise<number | null> {
    const row = await this.ledger.run((db) =>
      db
        .updateTable("payments")
        .set((eb) => ({
          refund_attempts: eb("refund_attempts", "+", 1),
          refund_lease_until: leaseUntil(ms),
          refund_sent_at: sql<Date>`now()`,
        }))
        .where("id", "=", paymentId)
        .where("refund", "=", "due")
        .where("refund_sent_at", "is", null)
        .where("refund_lease_owner", "=", owner)
        .where("refund_lease_until", ">", sql<Date>`now()`)
        .returning("refund_attempts")
        .executeTakeFirst(),
    );
    return row ? Number(row.refund_attempts) : null;
  }

  setAside(
    payment: ReceivedPayment,
    buyer: number | null,
    reason: string,
    kind: SetAside["kind"] = "payment",
  ) {
    return setAside(this.ledger, payment, buyer, reason, kind);
  }

  setAsideOpen(count: number): Promise<SetAside[]> {
    return openSetAside(this.ledger, count);
  }

  setAsideByReference(reference: string, count: number): Promise<SetAside[]> {
    return setAsideByReference(this.ledger, reference, count);
  }

  hasSetAside(purchaseId: string): Promise<boolean> {
    return hasSetAside(this.ledger, purchaseId);
  }

  closeSetAside(method: string, chargeId: string, by: string, note: string | null) {
    return closeSetAside(this.ledger, method, chargeId, by, note);
  }

  settleUnsettled(offer: OfferRef, note: string): Promise<boolean> {
    return settleUnsettled(this.ledger, offer, note);
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
