// /refunded takes any reference /refunds shows (the purchase id, the payment system's charge id,
// its other id), over the real ledger: exactly one refund owed or payment set aside is settled;
// a reference naming several is answered with each of them and settles nothing; an unknown one,
// or one settled before, names none.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { PaymentJournal, ReceivedPayment, Refund } from "../../src/domain/payment.js";
import { PaymentService } from "../../src/domain/payment-service.js";
import { PurchaseBook } from "../../src/domain/purchase-book.js";
import { RefundDesk } from "../../src/domain/refunds.js";
import type { TopupService } from "../../src/domain/topup.js";
import { testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import { awaitingPurchaseOf, quietAlarm, TEST_PAYMENT_SETTINGS } from "../support/purchases.js";

const ledger = testLedger("PGlite", "refund_references");
const { logger } = captureLogs();
let store: LedgerPurchases;
let payments: PaymentService;
let told: Refund[];

beforeAll(() => {
  store = new LedgerPurchases(ledger.connection, "references");
  const book = new PurchaseBook(store, logger);
  const teller = new OutcomeTeller(book, { tell: async () => undefined }, logger);
  told = [];
  const refunds = new RefundDesk(
    book,
    store,
    teller,
    {
      alertOperators: async () => undefined,
      tellBuyer: async (refund) => void told.push(refund),
    },
    async () => "owed",
    logger,
  );
  payments = new PaymentService(
    book,
    store,
    {} as PaymentJournal,
    {} as TopupService,
    teller,
    new Map(),
    refunds,
    quietAlarm,
    () => true,
    TEST_PAYMENT_SETTINGS,
    logger,
  );
});
afterEach(() => ledger.empty());

async function awaiting(id: string): Promise<void> {
  const purchase = awaitingPurchaseOf({
    id,
    buyer: 7,
    payment: { method: "esewa", currency: "NPR", minor: 70_000, expiresAt: Date.now() + 60_000 },
  });
  const created = await store.create(purchase, 1_000);
  if (created.kind === "created") await created.lease.release();
}

/** A payment of another amount than asked: it pays for nothing, and is owed back. */
const stray = (purchaseId: string, uuid: string, ref: string): ReceivedPayment => ({
  method: "esewa",
  purchaseId,
  currency: "NPR",
  minor: 50_000,
  charge: { id: uuid, providerId: ref, at: Date.now() },
});

describe("/refunded by a reference", () => {
  it("settles the one refund it names, by purchase, charge or the other id; names several back", async () => {
    await awaiting("p1");
    await store.receivePayment(stray("p1", "uuid-1", "REF1"), 1_000);
    await store.receivePayment(stray("p1", "uuid-2", "REF2"), 1_000);
    // The purchase id names both refunds owed: nothing is settled, both are named.
    expect(await payments.settleByReference("p1", "telegram:1", null)).toEqual({
      kind: "ambiguous",
      matches: [
        { method: "esewa", chargeId: "uuid-1" },
        { method: "esewa", chargeId: "uuid-2" },
      ],
    });
    expect(await store.refundsDue(10)).toHaveLength(2);
    // eSewa's ref_id names one.
    const byRef = await payments.settleByReference("REF1", "telegram:1", "portal");
    expect(byRef).toMatchObject({ kind: "refunded", refund: { chargeId: "uuid-1" } });
    expect(told.map((refund) => refund.chargeId)).toEqual(["uuid-1"]);
    expect(await payments.settleByReference("REF1", "telegram:1", null)).toEqual({ kind: "none" });
    // Now the purchase id names only the other: settled by it.
    expect(await payments.settleByReference("p1", "telegram:1", null)).toMatchObject({
      kind: "refunded",
      refund: { chargeId: "uuid-2", done: { by: "telegram:1" } },
    });
    expect(await store.refundsDue(10)).toEqual([]);
    expect(await payments.settleByReference("nothing-of-the-sort", "telegram:1", null)).toEqual({
      kind: "none",
    });
  });

  it("closes the one payment set aside it names, by charge, purchase or the other id", async () => {
    const doubtful = { ...stray("p2", "uuid-3", "REF3"), minor: 700 };
    await store.setAside(doubtful, 7, "COMPLETE for 7.0 when asked about 700.00");
    expect(await payments.settleByReference("REF3", "telegram:2", "refunded")).toMatchObject({
      kind: "closed",
      setAside: { chargeId: "uuid-3", closed: { by: "telegram:2", note: "refunded" } },
    });
    expect(await payments.settleByReference("uuid-3", "telegram:2", null)).toEqual({
      kind: "none",
    });
    // A refund owed and a payment set aside under one purchase id: both named, neither settled.
    await awaiting("p4");
    await store.receivePayment(stray("p4", "uuid-4", "REF4"), 1_000);
    await store.setAside({ ...stray("p4", "uuid-5", "REF5"), minor: 700 }, 7, "doubtful");
    expect(await payments.settleByReference("p4", "telegram:2", null)).toMatchObject({
      kind: "ambiguous",
      matches: [
        { method: "esewa", chargeId: "uuid-4" },
        { method: "esewa", chargeId: "uuid-5" },
      ],
    });
  });
});
