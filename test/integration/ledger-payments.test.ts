// The ledger's payments, the same suite on a real PostgreSQL server and on the embedded PGlite:
// a confirmation is recorded once per charge id and pays for its purchase only when it waits
// for exactly that amount; anything else is owed back; a refund is marked done once, by whom;
// refund calls are counted; the database refuses a top-up or refund without a recorded charge.
import { sql } from "kysely";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import type { ReceivedPayment } from "../../src/domain/payment.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { LEDGER_ENGINES, testLedger } from "../support/ledger-fixture.js";
import { awaitingPurchaseOf } from "../support/purchases.js";

describe.each(LEDGER_ENGINES)("the ledger's payments on %s", (engine) => {
  const ledger = testLedger(engine, "ledger_payments");
  let store: LedgerPurchases;

  beforeAll(() => {
    store = new LedgerPurchases(ledger.connection, "instance-a");
  });
  afterEach(() => ledger.empty());

  /** A purchase whose invoice for NPR 700.00 is out. */
  async function awaiting(id: string, buyer = 7): Promise<Purchase> {
    const purchase = awaitingPurchaseOf({
      id,
      buyer,
      payment: {
        method: "telegram",
        currency: "NPR",
        minor: 70_000,
        expiresAt: Date.now() + 60_000,
        offer: "55",
      },
    });
    const created = await store.create(purchase, 1_000);
    if (created.kind === "created") await created.lease.release();
    return purchase;
  }
  const confirmation = (purchaseId: string, chargeId: string, minor = 70_000): ReceivedPayment => ({
    method: "telegram",
    purchaseId,
    currency: "NPR",
    minor,
    charge: { id: chargeId, providerId: `prov-${chargeId}`, at: Date.now() },
  });

  it("records a confirmation once, paying for the purchase that waits for it", async () => {
    await awaiting("p1");
    const first = await store.receivePayment(confirmation("p1", "c1"), 1_000);
    expect(first.kind).toBe("applied");
    if (first.kind === "applied") await first.claim.lease.release();
    expect((await store.receivePayment(confirmation("p1", "c1"), 1_000)).kind).toBe("duplicate");
    const paid = await store.get("p1");
    expect(paid?.phase).toBe("paid");
    expect(paid?.payment?.charge).toMatchObject({ id: "c1", providerId: "prov-c1" });
    expect(await store.awaitingPayment(7)).toEqual([]);
    const events = await ledger.db
      .selectFrom("purchase_events")
      .select(["from_phase", "to_phase"])
      .where("purchase_id", "=", "p1")
      .orderBy("id")
      .execute();
    expect(events).toEqual([
      { from_phase: null, to_phase: "awaiting-payment" },
      { from_phase: "awaiting-payment", to_phase: "paid" },
    ]);
  });

  it("owes back a second payment, another amount, and a payment for an unknown purchase", async () => {
    await awaiting("p2");
    const applied = await store.receivePayment(confirmation("p2", "c2"), 1_000);
    if (applied.kind === "applied") await applied.claim.lease.release();
    const second = await store.receivePayment(confirmation("p2", "c2-again"), 1_000);
    expect(second).toMatchObject({ kind: "stray", refund: { purchaseId: "p2", buyer: 7 } });
    await awaiting("p3", 8);
    const cheaper = await store.receivePayment(confirmation("p3", "c3", 50_000), 1_000);
    expect(cheaper).toMatchObject({ kind: "stray", refund: { minor: 50_000 } });
    expect((await store.get("p3"))?.phase).toBe("awaiting-payment");
    const unknown = await store.receivePayment(confirmation("nope", "c4"), 1_000);
    expect(unknown).toMatchObject({ kind: "stray", refund: { purchaseId: null, buyer: null } });
    expect((await store.refundsDue(10)).map((refund) => refund.chargeId)).toEqual([
      "c2-again",
      "c3",
      "c4",
    ]);
  });

  it("pages refunds owed by method and after the last one seen, each once, oldest first", async () => {
    // Five payments owed back (an unknown purchase's): three eSewa, two Telegram, interleaved.
    const methods = ["esewa", "telegram", "esewa", "telegram", "esewa"] as const;
    for (const [index, method] of methods.entries()) {
      await store.receivePayment({ ...confirmation("nope", `s${index}`), method }, 1_000);
    }
    const first = await store.refundsDue(2, { methods: ["esewa"] });
    expect(first.map((refund) => refund.chargeId)).toEqual(["s0", "s2"]);
    const next = await store.refundsDue(2, { methods: ["esewa"], after: first.at(-1) });
    expect(next.map((refund) => refund.chargeId)).toEqual(["s4"]);
    expect(await store.refundsDue(2, { methods: ["esewa"], after: next.at(-1) })).toEqual([]);
    expect((await store.refundsDue(10, { methods: [] })).length).toBe(0);
    expect((await store.refundsDue(10)).map((refund) => refund.chargeId)).toEqual([
      "s0",
      "s1",
      "s2",
      "s3",
      "s4",
    ]);
  });

  it("records who paid; a payment by anyone but the buyer pays for nothing and is owed to its payer", async () => {
    await awaiting("p6", 9);
    const stranger = await store.receivePayment({ ...confirmation("p6", "c6"), payer: 10 }, 1_000);
    expect(stranger).toMatchObject({ kind: "stray", refund: { buyer: 9, payer: 10 } });
    expect((await store.get("p6"))?.phase).toBe("awaiting-payment");
    const own = await store.receivePayment({ ...confirmation("p6", "c7"), payer: 9 }, 1_000);
    expect(own.kind).toBe("applied");
    if (own.kind === "applied") await own.claim.lease.release();
    const rows = await ledger.db
      .selectFrom("payments")
      .select(["charge_id", "payer", "applied", "refund"])
      .where("purchase_id", "=", "p6")
      .orderBy("id")
      .execute();
    expect(rows.map((row) => ({ ...row, payer: Number(row.payer) }))).toEqual([
      { charge_id: "c6", payer: 10, applied: false, refund: "due" },
      { charge_id: "c7", payer: 9, applied: true, refund: "none" },
    ]);
    expect((await store.refundsDue(10)).map((refund) => refund.payer)).toEqual([10]);
  });

  it("marks a refund done once, with who and why, and the purchase refunded in the same transaction", async () => {
    const purchase = await awaiting("p5");
    const applied = await store.receivePayment(confirmation("p5", "c5"), 1_000);
    if (applied.kind === "applied") await applied.claim.lease.release();
    const paid = (await store.get("p5")) as Purchase;
    await store.save({ ...paid, phase: "refund-due", reason: "declined", updatedAt: Date.now() });
    expect(await store.refundDueFor("p5")).toMatchObject({ chargeId: "c5", attempts: 0 });
    const owed = (await store.refundDueFor("p5"))?.paymentId ?? "";
    // A call is counted only under a live lease on the refund, taken by one holder at a time.
    expect(await store.countRefundAttempt(owed, "desk-a", 60_000)).toBeNull();
    expect(await store.claimRefund(owed, "desk-a", 60_000)).toMatchObject({ state: "claimed" });
    expect(await store.claimRefund(owed, "desk-b", 60_000)).toEqual({ state: "held" });
    expect(await store.claimRefund(owed, "desk-a", 60_000)).toMatchObject({ state: "claimed" });
    expect(await store.countRefundAttempt(owed, "desk-b", 60_000)).toBeNull();
    expect(await store.countRefundAttempt(owed, "desk-a", 60_000)).toBe(1);
    await store.releaseRefund(owed, "desk-b");
    expect(await store.claimRefund(owed, "desk-b", 60_000)).toEqual({ state: "held" });
    await store.releaseRefund(owed, "desk-a");
    expect(await store.claimRefund(owed, "desk-b", 60_000)).toMatchObject({ state: "claimed" });
    // A person names it by any reference /refunds shows: the purchase, the charge, the other id.
    for (const reference of ["p5", "c5", "prov-c5"]) {
      expect((await store.refundsByReference(reference, 5)).map((r) => r.paymentId)).toEqual([
        owed,
      ]);
    }
    expect(await store.refundsByReference("c5-not-a-key", 5)).toEqual([]);
    expect(await store.markRefunded("not-an-id", "telegram:1", null, 1_000)).toBeNull();
    const refunded = await store.markRefunded(owed, "telegram:1", "card refund", 60_000);
    expect(refunded?.done).toMatchObject({ by: "telegram:1", note: "card refund" });
    // Refunded and untold, leased to whoever marked it: a reconciliation pass does not tell it
    // too; given back, it is the pass's.
    expect(refunded?.lease).toBeDefined();
    expect(await store.claimUntold(60_000)).toBeNull();
    await refunded?.lease?.release();
    const untold = await store.claimUntold(60_000);
    expect(untold?.id).toBe("p5");
    await untold?.lease.release();
    expect(await store.markRefunded(owed, "telegram:2", null, 1_000)).toBeNull();
    expect(await store.refundsByReference("p5", 5)).toEqual([]);
    expect((await store.get(purchase.id))?.phase).toBe("refunded");
    expect(await store.refundsDue(10)).toEqual([]);
    expect(await store.countRefundAttempt(refunded?.paymentId ?? "", "desk-b", 60_000)).toBeNull();
    // Refunded: the lease went with it, and no one takes it again.
    expect(await store.claimRefund(owed, "desk-a", 60_000)).toEqual({ state: "settled" });
    const row = await ledger.db
      .selectFrom("payments")
      .select(["refund_lease_owner", "refund_lease_until"])
      .where("id", "=", owed)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ refund_lease_owner: null, refund_lease_until: null });
  });

  it("a refund marked while a pass tells the purchase's earlier phase: the pass's to tell, not the marker's", async () => {
    await awaiting("p14");
    const applied = await store.receivePayment(confirmation("p14", "c14"), 1_000);
    if (applied.kind === "applied") await applied.claim.lease.release();
    const paid = (await store.get("p14")) as Purchase;
    await store.save({ ...paid, phase: "refund-due", reason: "declined", updatedAt: Date.now() });
    const telling = await store.claimUntold(60_000);
    expect(telling?.id).toBe("p14");
    const owed = (await store.refundDueFor("p14"))?.paymentId ?? "";
    const refunded = await store.markRefunded(owed, "esewa:status-check", null, 60_000);
    expect(refunded?.paymentId).toBe(owed);
    expect(refunded?.lease).toBeUndefined();
    expect((await store.get("p14"))?.phase).toBe("refunded");
    await telling?.lease.release();
    const next = await store.claimUntold(60_000);
    expect(next?.id).toBe("p14");
    await next?.lease.release();
  });

  it("takes over a lapsed lease on a refund; the database refuses a call counted without one", async () => {
    await awaiting("p13");
    await store.receivePayment(confirmation("p13", "c13", 50_000), 1_000);
    const [due] = await store.refundsDue(10);
    const owed = due?.paymentId ?? "";
    expect(await store.claimRefund(owed, "desk-a", 1)).toMatchObject({ state: "claimed" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.claimRefund(owed, "desk-b", 60_000)).toMatchObject({ state: "claimed" });
    expect(await store.countRefundAttempt(owed, "desk-a", 60_000)).toBeNull();
    await store.releaseRefund(owed, "desk-b");
    // Written past the bot's own conditions: the trigger of 0015 still refuses it.
    await expect(
      sql`UPDATE payments SET refund_attempts = refund_attempts + 1 WHERE id = ${owed}`.execute(
        ledger.db,
      ),
    ).rejects.toMatchObject({ code: "LG015" });
    await expect(
      sql`UPDATE payments SET refund_lease_owner = 'x' WHERE id = ${owed}`.execute(ledger.db),
    ).rejects.toThrow(/payments_refund_lease_pair/);
    // A call counted is recorded sent: no other call until its outcome is known.
    expect(await store.claimRefund(owed, "desk-b", 60_000)).toEqual({
      state: "claimed",
      attempts: 0,
      sent: false,
    });
    expect(await store.countRefundAttempt(owed, "desk-b", 60_000)).toBe(1);
    expect(await store.claimRefund(owed, "desk-b", 60_000)).toEqual({
      state: "claimed",
      attempts: 1,
      sent: true,
    });
    expect(await store.countRefundAttempt(owed, "desk-b", 60_000)).toBeNull();
    await expect(
      sql`UPDATE payments SET refund_attempts = refund_attempts + 1 WHERE id = ${owed}`.execute(
        ledger.db,
      ),
    ).rejects.toMatchObject({ code: "LG015" });
    await store.refundAnswered(owed, "desk-a");
    expect(await store.countRefundAttempt(owed, "desk-b", 60_000)).toBeNull();
    await store.refundAnswered(owed, "desk-b");
    expect(await store.countRefundAttempt(owed, "desk-b", 60_000)).toBe(2);
    await store.releaseRefund(owed, "desk-b");
    // Left to a person: no desk takes it.
    await store.handOverRefund(owed, "failed");
    expect(await store.claimRefund(owed, "desk-a", 60_000)).toEqual({ state: "settled" });
  });

  it("records a payment given back in part outside the bot: it pays for nothing, the rest owed", async () => {
    await awaiting("p8");
    const part = await store.receivePayment(
      { ...confirmation("p8", "c8"), refundedOutside: { minor: null } },
      1_000,
    );
    expect(part).toMatchObject({
      kind: "stray",
      refund: { purchaseId: "p8", minor: 70_000, refundedOutside: { minor: null } },
    });
    expect((await store.get("p8"))?.phase).toBe("awaiting-payment");
    const [due] = await store.refundsDue(10);
    expect(due?.refundedOutside?.at).toBeGreaterThan(0);
    const row = await ledger.db
      .selectFrom("payments")
      .select(["applied", "refund", "refund_reason", "outside_refund_minor"])
      .where("charge_id", "=", "c8")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      applied: false,
      refund: "due",
      refund_reason: "refunded-in-part-outside",
      outside_refund_minor: null,
    });
    // The part given back, where a system says it, is less than what was paid.
    await awaiting("p9");
    const said = await store.receivePayment(
      { ...confirmation("p9", "c9"), refundedOutside: { minor: 20_000 } },
      1_000,
    );
    expect(said).toMatchObject({ refund: { refundedOutside: { minor: 20_000 } } });
    await expect(
      store.receivePayment(
        { ...confirmation("p9", "c9-all"), refundedOutside: { minor: 70_000 } },
        1_000,
      ),
    ).rejects.toMatchObject({ name: "PaymentRefused" });
    // Why the bot left a refund to a person is kept, and said.
    await store.handOverRefund(due?.paymentId ?? "", "needs-mobile");
    expect((await store.refundsDue(10))[0]?.byHand).toBe("needs-mobile");
  });

  it("keeps the payer's complete mobile for a Khalti offer: with its transaction, once, until refunded", async () => {
    const purchase = await awaiting("p10");
    if (!purchase.payment) throw new Error("no payment");
    purchase.payment = { ...purchase.payment, method: "khalti", offer: "pidx-10" };
    await store.save(purchase);
    const offer = { purchaseId: "p10", method: "khalti" as const, handle: "pidx-10" };
    // Nothing recorded on the offer yet: no transaction to name it by.
    expect(await store.keepPayerMobile(offer, "txn-10", "9800000001")).toBe(false);
    const stray = await store.receivePayment(
      {
        method: "khalti",
        purchaseId: "p10",
        currency: "NPR",
        minor: 50_000,
        charge: { id: "pidx-10", providerId: "txn-10", at: Date.now() },
      },
      1_000,
    );
    if (stray.kind !== "stray") throw new Error("not owed");
    expect(await store.keepPayerMobile(offer, "txn-forged", "9800000009")).toBe(false);
    expect(await store.keepPayerMobile(offer, "txn-10", "9800000001")).toBe(true);
    // The first one stays.
    expect(await store.keepPayerMobile(offer, "txn-10", "9800000009")).toBe(false);
    expect(await store.payerMobileFor(stray.refund.paymentId)).toBe("9800000001");
    await store.markRefunded(stray.refund.paymentId, "khalti", null, 1_000);
    expect(await store.payerMobileFor(stray.refund.paymentId)).toBeNull();
  });

  it("holds the payment rules in the database itself", async () => {
    await awaiting("p6");
    // Paid (the way to a top-up) without a recorded charge: refused.
    await expect(
      sql`UPDATE purchases SET phase = 'paid' WHERE id = 'p6'`.execute(ledger.db),
    ).rejects.toThrow(/purchases_paid_before_topup/);
    // A charge id once per method.
    const insert = (charge: string) =>
      sql`INSERT INTO payments (purchase_id, method, currency, minor, charge_id, applied, refund, refund_due_at)
          VALUES ('p6', 'telegram', 'NPR', 100, ${charge}, false, 'due', now())`.execute(ledger.db);
    await insert("dup");
    await expect(insert("dup")).rejects.toThrow();
    // A payment not applied is owed back.
    await expect(
      sql`INSERT INTO payments (purchase_id, method, currency, minor, charge_id, applied)
          VALUES ('p6', 'telegram', 'NPR', 100, 'x', false)`.execute(ledger.db),
    ).rejects.toThrow();
    // Refunded says by whom.
    await expect(
      sql`UPDATE payments SET refund = 'refunded', refunded_at = now() WHERE charge_id = 'dup'`.execute(
        ledger.db,
      ),
    ).rejects.toThrow();
    // Given back in part outside the bot: it never pays for a purchase, the rest is owed.
    await expect(
      sql`INSERT INTO payments (purchase_id, method, currency, minor, charge_id, applied, outside_refund_seen_at)
          VALUES ('p6', 'telegram', 'NPR', 70000, 'part', true, now())`.execute(ledger.db),
    ).rejects.toThrow(/payments_part_refunded_pays_nothing/);
    await expect(
      sql`UPDATE payments SET outside_refund_minor = 50 WHERE charge_id = 'dup'`.execute(ledger.db),
    ).rejects.toThrow(/payments_outside_refund_part/);
    // A refund left to a person is owed; a payer's mobile is complete, and only Khalti's.
    await expect(
      sql`UPDATE payments SET refund_by_hand = 'asked-nicely' WHERE charge_id = 'dup'`.execute(
        ledger.db,
      ),
    ).rejects.toThrow();
    await expect(
      sql`UPDATE payment_offers SET payer_mobile = '98XXXXX001' WHERE purchase_id = 'p6'`.execute(
        ledger.db,
      ),
    ).rejects.toThrow();
    await expect(
      sql`UPDATE payment_offers SET payer_mobile = '9800000001' WHERE purchase_id = 'p6'`.execute(
        ledger.db,
      ),
    ).rejects.toThrow(/payment_offers_mobile_khalti/);
    // A purchase may end unpaid because its payment failed, or was given back outside.
    for (const reason of ["failed", "refunded-outside"]) {
      await sql`UPDATE purchases SET reason = ${reason} WHERE id = 'p6'`.execute(ledger.db);
    }
  });

  it("eSewa: one purchase per transaction_uuid, one payment per uuid and per ref_id", async () => {
    const esewa = async (id: string, uuid: string) => {
      await awaiting(id);
      await sql`UPDATE purchases SET payment_method = 'esewa', payment_offer = ${uuid} WHERE id = ${id}`.execute(
        ledger.db,
      );
    };
    await esewa("e1", "e1-0a0b0c0d");
    expect((await store.byOffer("esewa", "e1-0a0b0c0d"))?.id).toBe("e1");
    expect(await store.byOffer("khalti", "e1-0a0b0c0d")).toBeNull();
    await awaiting("e2");
    await expect(
      sql`UPDATE purchases SET payment_method = 'esewa', payment_offer = 'e1-0a0b0c0d' WHERE id = 'e2'`.execute(
        ledger.db,
      ),
    ).rejects.toThrow(/purchases_by_esewa_uuid/);
    const paid = (uuid: string, ref: string): ReceivedPayment => ({
      method: "esewa",
      purchaseId: "e1",
      currency: "NPR",
      minor: 70_000,
      charge: { id: uuid, providerId: ref, at: Date.now() },
    });
    const first = await store.receivePayment(paid("e1-0a0b0c0d", "REF1"), 1_000);
    expect(first.kind).toBe("applied");
    if (first.kind === "applied") await first.claim.lease.release();
    // The same status answer again: the same payment.
    expect((await store.receivePayment(paid("e1-0a0b0c0d", "REF1"), 1_000)).kind).toBe("duplicate");
    // Another uuid with the same eSewa reference: refused by the database.
    await expect(store.receivePayment(paid("e9-0a0b0c0d", "REF1"), 1_000)).rejects.toThrow();
    // A method the ledger does not know is still refused.
    await expect(
      sql`UPDATE purchases SET payment_method = 'cash' WHERE id = 'e2'`.execute(ledger.db),
    ).rejects.toThrow(/purchases_payment_method_check/);
  });

  it("Fonepay: one purchase per prn, a prn never offered twice, one payment per prn and per trace id", async () => {
    const fonepay = async (id: string, prn: string) => {
      await awaiting(id, 8);
      await sql`UPDATE purchases SET payment_method = 'fonepay', payment_offer = ${prn} WHERE id = ${id}`.execute(
        ledger.db,
      );
    };
    await fonepay("f1", "0a0b0c0d-1111222233334444");
    expect((await store.byOffer("fonepay", "0a0b0c0d-1111222233334444"))?.id).toBe("f1");
    await sql`UPDATE purchases SET phase = 'unpaid', reason = 'cancelled', told = 'unpaid', due_at = NULL WHERE id = 'f1'`.execute(
      ledger.db,
    );
    await awaiting("f2", 8);
    // The same prn on another purchase, even once the first ended: refused.
    await expect(
      sql`UPDATE purchases SET payment_method = 'fonepay', payment_offer = '0a0b0c0d-1111222233334444' WHERE id = 'f2'`.execute(
        ledger.db,
      ),
    ).rejects.toThrow(/purchases_by_fonepay_prn|payment_offers_one_purchase_per_handle/);
    await sql`UPDATE purchases SET payment_method = 'fonepay', payment_offer = 'f2-prn' WHERE id = 'f2'`.execute(
      ledger.db,
    );
    const paid = (purchaseId: string, prn: string, trace: string): ReceivedPayment => ({
      method: "fonepay",
      purchaseId,
      currency: "NPR",
      minor: 70_000,
      charge: { id: prn, providerId: trace, at: Date.now() },
    });
    const first = await store.receivePayment(paid("f2", "f2-prn", "TRACE1"), 1_000);
    expect(first.kind).toBe("applied");
    if (first.kind === "applied") await first.claim.lease.release();
    expect((await store.receivePayment(paid("f2", "f2-prn", "TRACE1"), 1_000)).kind).toBe(
      "duplicate",
    );
    // Another prn with the same trace id: refused by the database.
    await expect(
      store.receivePayment(paid("f1", "0a0b0c0d-1111222233334444", "TRACE1"), 1_000),
    ).rejects.toThrow();
  });

  it("keeps every offer of a purchase: a switch withdraws the earlier one, still found and looked up", async () => {
    const purchase = await awaiting("p7");
    const asked = purchase.payment;
    if (!asked) throw new Error("no payment");
    // The buyer switches from the invoice to a Khalti link.
    asked.method = "khalti";
    asked.offer = "pidx-7";
    await store.save(purchase);
    purchase.version += 1;
    const offers = await ledger.db
      .selectFrom("payment_offers")
      .select(["method", "handle", "withdrawn_at"])
      .where("purchase_id", "=", "p7")
      .orderBy("offered_at")
      .orderBy("method", "desc")
      .execute();
    expect(offers.map((o) => [o.method, o.handle, o.withdrawn_at !== null])).toEqual([
      ["telegram", "55", true],
      ["khalti", "pidx-7", false],
    ]);
    expect((await store.byOffer("khalti", "pidx-7"))?.id).toBe("p7");
    // Only withdrawn offers of the methods asked for are looked up, each by one instance a time.
    expect(await store.offersToLook(["khalti"], 10, 60_000)).toEqual([]);
    const due = await store.offersToLook(["telegram", "khalti"], 10, 60_000);
    expect(due).toEqual([
      { purchaseId: "p7", method: "telegram", handle: "55", payableUntil: null },
    ]);
    expect(await store.offersToLook(["telegram"], 10, 60_000)).toEqual([]);
    // The payment on the withdrawn invoice pays for the purchase, which names it again.
    const paid = await store.receivePayment(confirmation("p7", "c7"), 1_000);
    expect(paid.kind).toBe("applied");
    if (paid.kind === "applied") await paid.claim.lease.release();
    expect((await store.get("p7"))?.payment).toMatchObject({ method: "telegram", offer: "55" });
    await store.closeOffer({ purchaseId: "p7", method: "khalti", handle: "pidx-7" });
    const closed = await ledger.db
      .selectFrom("payment_offers")
      .select(["handle", "closed_at"])
      .where("closed_at", "is not", null)
      .execute();
    expect(closed.map((o) => o.handle)).toEqual(["pidx-7"]);
  });

  /** A purchase whose Khalti link for NPR 700.00 (payable until `until`) is out. */
  async function linked(id: string, pidx: string, until: number, buyer = 7): Promise<Purchase> {
    const purchase = await awaiting(id, buyer);
    if (!purchase.payment) throw new Error("no payment");
    purchase.payment = { ...purchase.payment, method: "khalti", offer: pidx, offerUntil: until };
    await store.save(purchase);
    return purchase;
  }
  const offerRow = (pidx: string) =>
    ledger.db
      .selectFrom("payment_offers")
      .select(["withdrawn_at", "next_look_at", "closed_at", "payable_until"])
      .where("handle", "=", pidx)
      .executeTakeFirstOrThrow();
  const khaltiPaid = (purchaseId: string, pidx: string, minor = 70_000): ReceivedPayment => ({
    method: "khalti",
    purchaseId,
    currency: "NPR",
    minor,
    charge: { id: pidx, providerId: `txn-${pidx}`, at: Date.now() },
  });

  it("watches the offer of a purchase that ends unpaid until its system's own expiry, kept at the latest", async () => {
    const until = Date.now() + 1_800_000;
    const purchase = await linked("w1", "pidx-w1", until);
    expect((await offerRow("pidx-w1")).payable_until?.getTime()).toBe(until);
    expect((await offerRow("pidx-w1")).withdrawn_at).toBeNull();
    expect(
      await store.offerPayableUntil({ purchaseId: "w1", method: "khalti", handle: "pidx-w1" }),
    ).toBe(until);
    // Cancelled by its buyer: the database watches its link from now on.
    await store.save({ ...purchase, phase: "unpaid", reason: "cancelled", told: "unpaid" });
    const watched = await offerRow("pidx-w1");
    expect(watched.withdrawn_at).not.toBeNull();
    expect(watched.next_look_at).not.toBeNull();
    expect(watched.closed_at).toBeNull();
    const offer = { purchaseId: "w1", method: "khalti" as const, handle: "pidx-w1" };
    expect(await store.offersToLook(["khalti"], 10, 60_000)).toEqual([
      { ...offer, payableUntil: until },
    ]);
    // Taken for a minute (by the clock the caller names): not again before then.
    expect(await store.offersToLook(["khalti"], 10, 60_000, Date.now() + 30_000)).toEqual([]);
    expect(await store.offersToLook(["khalti"], 10, 60_000, Date.now() + 61_000)).toHaveLength(1);
    // Put off (an offer in its margin after its payable-until): not looked up before then.
    await store.lookOfferAt(offer, Date.now() + 7_200_000);
    expect(await store.offersToLook(["khalti"], 10, 60_000, Date.now() + 3_600_000)).toEqual([]);
    expect(await store.offersToLook(["khalti"], 10, 60_000, Date.now() + 7_201_000)).toHaveLength(
      1,
    );
    // Served again (eSewa's pay page): later only, never earlier.
    await store.keepOfferUntil(offer, until + 60_000);
    await store.keepOfferUntil(offer, until - 60_000);
    expect(await store.offerPayableUntil(offer)).toBe(until + 60_000);
    await store.closeOffer(offer);
    expect((await offerRow("pidx-w1")).closed_at).not.toBeNull();
    expect(await store.offersToLook(["khalti"], 10, 60_000, Date.now() + 3_600_000)).toEqual([]);
  });

  it("a payment found on the offer of a purchase that ended unpaid pays for it, late; a second one is owed back", async () => {
    const purchase = await linked("w2", "pidx-w2", Date.now() + 1_800_000);
    await store.save({ ...purchase, phase: "unpaid", reason: "expired", told: "unpaid" });
    // Another amount first: owed back, the purchase still unpaid.
    const other = await store.receivePayment(khaltiPaid("w2", "pidx-w2b", 60_000), 1_000);
    expect(other.kind).toBe("stray");
    expect((await store.get("w2"))?.phase).toBe("unpaid");
    const late = await store.receivePayment(khaltiPaid("w2", "pidx-w2"), 1_000);
    expect(late).toMatchObject({ kind: "applied", late: "expired" });
    if (late.kind === "applied") await late.claim.lease.release();
    const paid = await store.get("w2");
    expect(paid).toMatchObject({ phase: "paid", reason: null, told: "unpaid" });
    expect(paid?.payment).toMatchObject({
      method: "khalti",
      offer: "pidx-w2",
      charge: { id: "pidx-w2" },
    });
    const events = await ledger.db
      .selectFrom("purchase_events")
      .select(["from_phase", "to_phase"])
      .where("purchase_id", "=", "w2")
      .orderBy("id")
      .execute();
    expect(events.slice(-2)).toEqual([
      { from_phase: "awaiting-payment", to_phase: "unpaid" },
      { from_phase: "unpaid", to_phase: "paid" },
    ]);
    // Nothing else pays for it any more.
    const again = await store.receivePayment(confirmation("w2", "c-w2"), 1_000);
    expect(again).toMatchObject({ kind: "stray", refund: { purchaseId: "w2" } });
    // Paid on time, the receipt says nothing of lateness.
    await linked("w3", "pidx-w3", Date.now() + 1_800_000, 8);
    const onTime = await store.receivePayment(khaltiPaid("w3", "pidx-w3"), 1_000);
    expect(onTime.kind).toBe("applied");
    expect(onTime).not.toHaveProperty("late");
    if (onTime.kind === "applied") await onTime.claim.lease.release();
  });

  it("a payment on the earlier of two offers of one method names that offer again", async () => {
    const purchase = await linked("w4", "pidx-w4a", Date.now() + 1_800_000);
    if (!purchase.payment) throw new Error("no payment");
    purchase.payment = { ...purchase.payment, offer: "pidx-w4b" };
    await store.save(purchase);
    const paid = await store.receivePayment(khaltiPaid("w4", "pidx-w4a"), 1_000);
    if (paid.kind === "applied") await paid.claim.lease.release();
    expect((await store.get("w4"))?.payment).toMatchObject({ offer: "pidx-w4a" });
    // The other link is watched in its turn: paid too, it would be owed back.
    expect((await offerRow("pidx-w4b")).withdrawn_at).not.toBeNull();
    expect((await offerRow("pidx-w4a")).withdrawn_at).toBeNull();
  });

  it("refuses to put a second purchase of a buyer in flight, saying so (BuyerBusyError)", async () => {
    for (const id of ["b1", "b2"]) {
      await awaiting(id, 9);
      const paid = await store.receivePayment(confirmation(id, `c-${id}`), 1_000);
      if (paid.kind === "applied") await paid.claim.lease.release();
    }
    const first = (await store.get("b1")) as Purchase;
    const second = (await store.get("b2")) as Purchase;
    const taking = (purchase: Purchase, token: string): Purchase => ({
      ...purchase,
      phase: "token-taken",
      checkout: { id: token, issuedAt: Date.now() },
      reference: `ref-${token}`,
    });
    expect(await store.takeCheckout(taking(first, "co-b1"))).toBe(true);
    await expect(store.takeCheckout(taking(second, "co-b2"))).rejects.toMatchObject({
      name: "BuyerBusyError",
      purchaseId: "b2",
    });
    expect((await store.get("b2"))?.phase).toBe("paid");
  });

  it("holds the offer rules in the database: one purchase per handle, payments by offered methods", async () => {
    const first = await awaiting("p8", 8);
    const second = await awaiting("p9", 9);
    for (const purchase of [first, second]) {
      if (purchase.payment)
        purchase.payment = { ...purchase.payment, method: "khalti", offer: "same" };
    }
    await store.save(first);
    // (purchases_by_khalti_pidx for the current offer, payment_offers_one_purchase_per_handle for any)
    await expect(store.save(second)).rejects.toThrow(/duplicate key/);
    await expect(
      sql`INSERT INTO payment_offers (purchase_id, method, handle) VALUES ('p9', 'khalti', 'same')`.execute(
        ledger.db,
      ),
    ).rejects.toThrow(/payment_offers_one_purchase_per_handle/);
    // A payment applied by a method the purchase was never offered with: refused.
    await expect(
      sql`INSERT INTO payments (purchase_id, method, currency, minor, charge_id, applied)
          VALUES ('p9', 'khalti', 'NPR', 70000, 'k9', true)`.execute(ledger.db),
    ).rejects.toThrow(/never offered/);
  });
});
