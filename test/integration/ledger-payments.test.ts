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
import { purchaseOf } from "../support/purchases.js";

describe.each(LEDGER_ENGINES)("the ledger's payments on %s", (engine) => {
  const ledger = testLedger(engine, "ledger_payments");
  let store: LedgerPurchases;

  beforeAll(() => {
    store = new LedgerPurchases(ledger.connection, "instance-a");
  });
  afterEach(() => ledger.empty());

  /** A purchase whose invoice for NPR 700.00 is out. */
  async function awaiting(id: string, buyer = 7): Promise<Purchase> {
    const purchase = purchaseOf({
      id,
      buyer,
      phase: "awaiting-payment",
      told: null,
      transaction: null,
      checkout: null,
      reference: null,
      createdAt: Date.now(),
      updatedAt: Date.now(),
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

  it("marks a refund done once, with who and why, and the purchase refunded in the same transaction", async () => {
    const purchase = await awaiting("p5");
    const applied = await store.receivePayment(confirmation("p5", "c5"), 1_000);
    if (applied.kind === "applied") await applied.claim.lease.release();
    const paid = (await store.get("p5")) as Purchase;
    await store.save({ ...paid, phase: "refund-due", reason: "declined", updatedAt: Date.now() });
    expect(await store.refundDueFor("p5")).toMatchObject({ chargeId: "c5", attempts: 0 });
    expect(await store.countRefundAttempt((await store.refundDueFor("p5"))?.paymentId ?? "")).toBe(
      1,
    );
    const done = await store.markRefunded("prov-c5-not-a-key", "telegram:1", null);
    expect(done).toBeNull();
    const refunded = await store.markRefunded("c5", "telegram:1", "card refund");
    expect(refunded?.done).toMatchObject({ by: "telegram:1", note: "card refund" });
    expect(await store.markRefunded("p5", "telegram:2", null)).toBeNull();
    expect((await store.get(purchase.id))?.phase).toBe("refunded");
    expect(await store.refundsDue(10)).toEqual([]);
    expect(await store.countRefundAttempt(refunded?.paymentId ?? "")).toBeNull();
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
    expect(due).toEqual([{ purchaseId: "p7", method: "telegram", handle: "55" }]);
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
