// The finance report's reads of the ledger, on a real PostgreSQL server and on the embedded
// PGlite, each suite over a ledger of its own. Purchases: exact sums counted by the database,
// the provider's calendar days, every purchase of a period read once in order, page after page.
// Payments (PAYMENT_MODE=telegram): how each payment phase counts among the outcomes, what is
// open, the payments received, owed back and refunded with exact sums per currency, the
// mismatches, and each purchase's payment in the file.
// Payment methods: what each one charged, owes back and refunded (the applied payment's method
// first), what nobody paid for in the bot, and each line's method and references.
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { LedgerReports } from "../../src/adapters/ledger/reports.js";
import type { ReportRow } from "../../src/domain/report.js";
import {
  LEDGER_ENGINES,
  type LedgerEngine,
  type TestLedger,
  testLedger,
} from "../support/ledger-fixture.js";
import {
  insertPayments,
  insertRows,
  ledgerRow,
  paidLedgerRow,
  paymentOf,
  strayPayment,
} from "../support/ledger-rows.js";

// Kathmandu is 5:45 ahead: a day there runs from 18:15Z the day before to 18:15Z.
const ZONE = "Asia/Kathmandu";
const at = (iso: string) => new Date(iso);

async function collect(rows: AsyncIterable<ReportRow>): Promise<ReportRow[]> {
  const all: ReportRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

/**
 * The reports over a ledger of the suite's own on `engine`, filled before its tests;
 * `reports(pageSize)` reads the purchases in pages of that size.
 */
function reportsOn(
  engine: LedgerEngine,
  name: string,
  fill: (db: TestLedger["db"]) => Promise<void>,
) {
  const ledger = testLedger(engine, name, { poolSize: 4 });
  beforeAll(() => fill(ledger.db), 60_000);
  return {
    ledger,
    reports: (pageSize?: number) => new LedgerReports(ledger.connection, ZONE, pageSize),
  };
}

describe.each(LEDGER_ENGINES)("the ledger's reports on %s", (engine) => {
  // 2026-11-19T18:15Z to 2026-11-20T18:15Z.
  const DAY = { first: "2026-11-20", last: "2026-11-20" };
  const { ledger, reports } = reportsOn(engine, "report_ledger", async (db) => {
    const gold = { bouquet_code: "TV-GOLD-M", bouquet_name: "Gold (MONTHLY)" };
    const iptv = { service: "iptv", bouquet_code: "IPTV-X", bouquet_name: "IPTV X" };
    await insertRows(db, [
      // The day's first instant, and a charge that differs from the listed price.
      ledgerRow({ created_at: at("2026-11-19T18:15:00Z"), ...gold }),
      ledgerRow({ created_at: at("2026-11-20T09:00:00Z"), ...gold, txn_amount: "650.5" }),
      ledgerRow({
        created_at: at("2026-11-20T10:00:00Z"),
        service: "internet",
        bouquet_code: "NET-25M-H",
        bouquet_name: "25 Mbps (HALF-YEARLY)",
        price: "1234.505",
      }),
      // 0.1 + 0.2 is 0.3 exactly, not 0.30000000000000004.
      ledgerRow({ created_at: at("2026-11-20T11:00:00Z"), ...iptv, price: "0.1" }),
      ledgerRow({ created_at: at("2026-11-20T11:00:00Z"), ...iptv, price: "0.2" }),
      ledgerRow({
        created_at: at("2026-11-20T12:00:00Z"),
        phase: "not-charged",
        reason: "declined",
        price: "500",
      }),
      ledgerRow({ created_at: at("2026-11-20T12:01:00Z"), phase: "not-charged", price: "300" }),
      ledgerRow({
        created_at: at("2026-11-20T12:02:00Z"),
        phase: "not-charged",
        reason: "unavailable",
        price: "200",
      }),
      ledgerRow({ created_at: at("2026-11-20T12:03:00Z"), phase: "unknown", price: "100" }),
      ledgerRow({ created_at: at("2026-11-20T12:04:00Z"), phase: "requested", price: "50" }),
      ledgerRow({ created_at: at("2026-11-20T12:05:00Z"), phase: "created", price: "25" }),
      // Just outside the day, either side; open on another day.
      ledgerRow({ created_at: at("2026-11-19T18:14:59.999Z"), ...gold }),
      ledgerRow({ created_at: at("2026-11-20T18:15:00Z"), ...gold }),
      ledgerRow({ created_at: at("2026-11-01T06:00:00Z"), phase: "unknown", price: "10" }),
    ]);
    // Two purchases within one millisecond: a cursor kept as a Date would lose one.
    await insertRows(db, [
      ledgerRow({ created_at: "2026-11-20T13:00:00.000100Z", id: "micro-b" }),
      ledgerRow({ created_at: "2026-11-20T13:00:00.000200Z", id: "micro-a" }),
    ]);
  });

  it("counts and sums the day's purchases by outcome, service and bouquet, exactly", async () => {
    const summary = await reports().summary(DAY);
    expect(summary.outcomes).toEqual({
      charged: { count: 7, sum: "3985.305" },
      declined: { count: 1, sum: "500" },
      "not-charged": { count: 2, sum: "500" },
      unknown: { count: 2, sum: "150" },
      pending: { count: 1, sum: "25" },
      // Nobody paid in the bot: no payment phase.
      "awaiting-payment": { count: 0, sum: "0" },
      unpaid: { count: 0, sum: "0" },
      "refund-due": { count: 0, sum: "0" },
      refunded: { count: 0, sum: "0" },
    });
    expect(summary.services).toEqual({
      tv: { count: 4, sum: "2750.5" },
      internet: { count: 1, sum: "1234.505" },
      iptv: { count: 2, sum: "0.3" },
    });
    expect(summary.bouquets).toEqual([
      { code: "TV-GOLD-M", name: "Gold (MONTHLY)", count: 4, sum: "2750.5" },
      { code: "IPTV-X", name: "IPTV X", count: 2, sum: "0.3" },
      { code: "NET-25M-H", name: "25 Mbps (HALF-YEARLY)", count: 1, sum: "1234.505" },
    ]);
    // Open now, whatever the day: unknown, requested, created, and the one of 1 November.
    expect(summary.open).toEqual({ count: 4, sum: "185" });
  });

  it("has no payments to report when nobody pays in the bot", async () => {
    const none = { count: 0, sums: [] };
    expect(await reports().payments(DAY, Date.now())).toEqual({
      received: none,
      refundDue: none,
      refunded: none,
      refundsDueNow: none,
      unsettled: none,
      chargedUnpaid: { count: 0, sum: "0" },
    });
    const rows = await collect(reports().rows(DAY));
    expect(rows.map((row) => row.payment)).toEqual(rows.map(() => null));
  });

  it("ranks the ten best sellers and says zero for a day without purchases", async () => {
    const day = "2026-12-05";
    await insertRows(
      ledger.db,
      Array.from({ length: 12 }, (_, bouquet) =>
        Array.from({ length: bouquet + 1 }, () =>
          ledgerRow({
            created_at: at("2026-12-05T06:00:00Z"),
            bouquet_code: `B${String(bouquet).padStart(2, "0")}`,
            bouquet_name: `Bouquet ${bouquet}`,
            price: "1",
          }),
        ),
      ).flat(),
    );
    const summary = await reports().summary({ first: day, last: day });
    expect(summary.bouquets.map((b) => [b.code, b.count])).toEqual(
      Array.from({ length: 10 }, (_, i) => [`B${String(11 - i).padStart(2, "0")}`, 12 - i]),
    );
    const empty = await reports().summary({ first: "2026-10-01", last: "2026-10-31" });
    expect(empty.outcomes.charged).toEqual({ count: 0, sum: "0" });
    expect(empty.services.tv).toEqual({ count: 0, sum: "0" });
    expect(empty.bouquets).toEqual([]);
  });

  it("reads every purchase of the period once, in order, across pages", async () => {
    const { rows: expected } = await sql<{ id: string }>`
      SELECT id FROM purchases
      WHERE created_at >= '2026-11-19T18:15:00Z' AND created_at < '2026-11-20T18:15:00Z'
      ORDER BY created_at, id`.execute(ledger.db);
    expect(expected).toHaveLength(13);
    for (const pageSize of [1, 3, 1_000]) {
      const rows = await collect(reports(pageSize).rows(DAY));
      expect(rows.map((row) => row.id)).toEqual(expected.map((row) => row.id));
    }
    const rows = await collect(reports().rows(DAY));
    expect(rows.map((row) => row.outcome)).toEqual([
      "charged",
      "charged",
      "charged",
      "charged",
      "charged",
      "declined",
      "not-charged",
      "not-charged",
      "unknown",
      "unknown",
      "pending",
      "charged",
      "charged",
    ]);
    expect(rows[1]).toMatchObject({ amount: "650.5", service: "tv", txnId: expect.any(String) });
    expect(rows[0]?.at).toBe(Date.parse("2026-11-19T18:15:00Z"));
  });

  it("sums the charged sales of every day, zero where none", async () => {
    expect(await reports().dailySales({ first: "2026-11-18", last: "2026-11-21" })).toEqual([
      { day: "2026-11-18", sum: "0" },
      { day: "2026-11-19", sum: "700" },
      { day: "2026-11-20", sum: "3985.305" },
      { day: "2026-11-21", sum: "700" },
    ]);
  });
});

describe.each(LEDGER_ENGINES)("payments in the ledger's reports on %s", (engine) => {
  // 2026-11-09T18:15Z to 2026-11-10T18:15Z.
  const DAY = { first: "2026-11-10", last: "2026-11-10" };
  /** The verify window began then: a payment received before should be settled by now. */
  const SETTLED_BEFORE = Date.parse("2026-11-10T10:00:00Z");

  const charged = paidLedgerRow({ id: "paid-charged", created_at: at("2026-11-10T08:00:00Z") });
  const refundDue = paidLedgerRow({
    id: "paid-refund-due",
    created_at: at("2026-11-10T08:01:00Z"),
    phase: "refund-due",
    reason: "declined",
    price: "500",
    // A refund due may still be looked at (to tell the buyer): it is not open for that.
    due_at: new Date(Date.now() + 3_600_000),
  });
  const refunded = paidLedgerRow({
    id: "paid-refunded",
    created_at: at("2026-11-10T08:02:00Z"),
    phase: "refunded",
    reason: "offer-changed",
    price: "300",
  });
  const unpaid = paidLedgerRow({
    id: "unpaid",
    created_at: at("2026-11-10T08:03:00Z"),
    phase: "unpaid",
    price: "200",
  });
  const awaiting = paidLedgerRow({
    id: "awaiting",
    created_at: at("2026-11-10T08:04:00Z"),
    phase: "awaiting-payment",
    price: "100",
  });
  // Paid before the verify window began, and still "paid": neither charged nor owed back.
  const stuck = paidLedgerRow({
    id: "paid-stuck",
    created_at: at("2026-11-10T09:00:00Z"),
    phase: "paid",
    price: "650.5",
  });
  // Paid within the verify window: its top-up may still be on its way.
  const recent = paidLedgerRow({
    id: "paid-recent",
    created_at: at("2026-11-10T10:30:00Z"),
    phase: "paid",
    price: "50",
  });
  // Asked for a payment and charged, but the ledger has no payment for it.
  const chargedUnpaid = paidLedgerRow({
    id: "charged-unpaid",
    created_at: at("2026-11-10T11:00:00Z"),
    price: "400",
  });
  // Nobody paid in the bot for this one (PAYMENT_MODE=none): no payment is expected.
  const agent = ledgerRow({ id: "agent", created_at: at("2026-11-10T12:00:00Z") });

  const { reports } = reportsOn(engine, "report_payments", async (db) => {
    await insertRows(db, [
      charged,
      refundDue,
      refunded,
      unpaid,
      awaiting,
      stuck,
      recent,
      chargedUnpaid,
      agent,
    ]);
    await insertPayments(db, [
      paymentOf(charged),
      paymentOf(refundDue),
      paymentOf(refunded),
      paymentOf(stuck),
      paymentOf(recent),
      // The charged purchase paid a second time, and a payment of no purchase known.
      strayPayment({
        purchase_id: charged.id,
        received_at: at("2026-11-10T08:05:00Z"),
        minor: 70_000,
      }),
      strayPayment({ received_at: at("2026-11-10T08:06:00Z"), minor: 1_234 }),
      // Refunded in another currency: summed apart, never added to rupees.
      strayPayment({
        received_at: at("2026-11-10T08:07:00Z"),
        currency: "USD",
        minor: 500,
        refund: "refunded",
        refunded_at: at("2026-11-10T09:00:00Z"),
        refunded_by: "admin:1",
      }),
      // Owed back since another day: a refund due now, not a payment of this day.
      strayPayment({ received_at: at("2026-11-01T08:00:00Z"), minor: 99_900 }),
      // Received (and refunded) just outside the day, either side.
      ...["2026-11-09T18:14:59.999Z", "2026-11-10T18:15:00Z"].map((time) =>
        strayPayment({
          received_at: at(time),
          minor: 1,
          refund: "refunded",
          refunded_at: at(time),
          refunded_by: "admin:1",
        }),
      ),
    ]);
  });

  it("counts each payment phase as its own outcome, and open what still waits", async () => {
    const summary = await reports().summary(DAY);
    expect(summary.outcomes).toEqual({
      charged: { count: 3, sum: "1800" },
      declined: { count: 0, sum: "0" },
      "not-charged": { count: 0, sum: "0" },
      unknown: { count: 0, sum: "0" },
      // Paid, the top-up not sent yet.
      pending: { count: 2, sum: "700.5" },
      "awaiting-payment": { count: 1, sum: "100" },
      unpaid: { count: 1, sum: "200" },
      "refund-due": { count: 1, sum: "500" },
      refunded: { count: 1, sum: "300" },
    });
    // Not one payment phase counts as charged.
    expect(summary.services.tv).toEqual({ count: 3, sum: "1800" });
    // Awaiting payment and paid are open; a refund due is not, even while looked at.
    expect(summary.open).toEqual({ count: 3, sum: "800.5" });
  });

  it("sums the day's payments received, owed back and refunded, exactly and per currency", async () => {
    const payments = await reports().payments(DAY, SETTLED_BEFORE);
    const npr = (count: number, sum: string) => ({ count, sums: [{ currency: "NPR", sum }] });
    expect(payments).toEqual({
      // 700 + 500 + 300 + 650.50 + 50 + 700 (paid twice) + 12.34, and USD 5.00.
      received: {
        count: 8,
        sums: [
          { currency: "NPR", sum: "2912.84" },
          { currency: "USD", sum: "5.00" },
        ],
      },
      // The refund due, the second payment, the payment of no purchase.
      refundDue: npr(3, "1212.34"),
      refunded: {
        count: 2,
        sums: [
          { currency: "NPR", sum: "300.00" },
          { currency: "USD", sum: "5.00" },
        ],
      },
      // Those three, and the one owed back since 1 November.
      refundsDueNow: npr(4, "2211.34"),
      unsettled: npr(1, "650.50"),
      chargedUnpaid: { count: 1, sum: "400" },
    });
  });

  it("sees a payment as unsettled only once the verify window after it is over", async () => {
    const early = await reports().payments(DAY, Date.parse("2026-11-10T08:59:00Z"));
    expect(early.unsettled).toEqual({ count: 0, sums: [] });
    const late = await reports().payments(DAY, Date.parse("2026-11-10T12:00:00Z"));
    expect(late.unsettled).toEqual({ count: 2, sums: [{ currency: "NPR", sum: "700.50" }] });
  });

  it("has nothing to say of payments on a day without any, but the refunds due of any day", async () => {
    const payments = await reports().payments(
      { first: "2026-10-01", last: "2026-10-31" },
      SETTLED_BEFORE,
    );
    const none = { count: 0, sums: [] };
    expect(payments).toEqual({
      received: none,
      refundDue: none,
      refunded: none,
      refundsDueNow: { count: 4, sums: [{ currency: "NPR", sum: "2211.34" }] },
      unsettled: none,
      chargedUnpaid: { count: 0, sum: "0" },
    });
  });

  it("lists each purchase once with its own payment, across pages", async () => {
    for (const pageSize of [1, 1_000]) {
      const rows = await collect(reports(pageSize).rows(DAY));
      expect(rows.map((row) => [row.id, row.outcome, row.amount])).toEqual([
        ["paid-charged", "charged", "700"],
        ["paid-refund-due", "refund-due", "500"],
        ["paid-refunded", "refunded", "300"],
        ["unpaid", "unpaid", "200"],
        ["awaiting", "awaiting-payment", "100"],
        ["paid-stuck", "pending", "650.5"],
        ["paid-recent", "pending", "50"],
        ["charged-unpaid", "charged", "400"],
        ["agent", "charged", "700"],
      ]);
    }
    const byId = new Map((await collect(reports().rows(DAY))).map((row) => [row.id, row.payment]));
    const paid = (id: string, amount: string, refund: string) => ({
      method: "telegram",
      paid: amount,
      chargeId: `charge-${id}`,
      providerChargeId: `provider-${id}`,
      refund,
    });
    // The applied payment only: the second payment of paid-charged is owed back on its own.
    expect(byId.get("paid-charged")).toEqual(paid("paid-charged", "700.00", "none"));
    expect(byId.get("paid-refund-due")).toEqual(paid("paid-refund-due", "500.00", "due"));
    expect(byId.get("paid-refunded")).toEqual(paid("paid-refunded", "300.00", "refunded"));
    expect(byId.get("paid-stuck")).toEqual(paid("paid-stuck", "650.50", "none"));
    expect(byId.get("unpaid")).toEqual({
      method: "telegram",
      paid: null,
      chargeId: null,
      providerChargeId: null,
      refund: null,
    });
    // Its charge ids say it was paid; no payment in the ledger says so.
    expect(byId.get("charged-unpaid")).toEqual({
      method: "telegram",
      paid: null,
      chargeId: "charge-charged-unpaid",
      providerChargeId: "provider-charged-unpaid",
      refund: null,
    });
    expect(byId.get("agent")).toBeNull();
  });
});

describe.each(LEDGER_ENGINES)("payment methods in the ledger's reports on %s", (engine) => {
  // 2026-11-11T18:15Z to 2026-11-12T18:15Z.
  const DAY = { first: "2026-11-12", last: "2026-11-12" };
  const time = (minute: number) => at(`2026-11-12T08:${String(minute).padStart(2, "0")}:00Z`);
  const khalti = { payment_method: "khalti" };

  const cardCharged = paidLedgerRow({ id: "card-charged", created_at: time(0) });
  const cardRefunded = paidLedgerRow({
    id: "card-refunded",
    created_at: time(1),
    phase: "refunded",
    reason: "declined",
    price: "300",
  });
  // Charged less than the listed price: the charged amount counts, as in the outcomes.
  const khaltiCharged = paidLedgerRow({
    id: "khalti-charged",
    created_at: time(2),
    ...khalti,
    price: "1000",
    txn_amount: "999.5",
  });
  const khaltiOwed = paidLedgerRow({
    id: "khalti-owed",
    created_at: time(3),
    ...khalti,
    phase: "refund-due",
    reason: "declined",
    price: "500",
  });
  // Asked for a card payment, then paid through the Khalti offer it had before: the payment
  // that was applied says which method took the money.
  const switched = paidLedgerRow({
    id: "switched",
    created_at: time(4),
    price: "250",
    payment_charge_id: "pidx-switched",
    payment_provider_charge_id: "khalti-txn-switched",
  });
  // Neither charged nor owed back nor refunded: no method counts them.
  const khaltiUnpaid = paidLedgerRow({
    id: "khalti-unpaid",
    created_at: time(5),
    ...khalti,
    phase: "unpaid",
  });
  const cardWaiting = paidLedgerRow({
    id: "card-waiting",
    created_at: time(6),
    phase: "awaiting-payment",
  });
  const agents = [7, 8].map((minute) =>
    ledgerRow({ id: `agent-${minute}`, created_at: time(minute), price: "700.25" }),
  );
  // A day later: not of this period.
  const tomorrow = paidLedgerRow({ created_at: at("2026-11-12T18:15:00Z"), ...khalti });

  const { reports } = reportsOn(engine, "report_methods", async (db) => {
    await insertRows(db, [
      cardCharged,
      cardRefunded,
      khaltiCharged,
      khaltiOwed,
      switched,
      khaltiUnpaid,
      cardWaiting,
      ...agents,
      tomorrow,
    ]);
    // The Khalti offer it had before the switch (the ledger takes a payment only by one offered).
    await db
      .insertInto("payment_offers")
      .values({
        purchase_id: "switched",
        method: "khalti",
        handle: "pidx-switched",
        offered_at: time(4),
        withdrawn_at: time(4),
      })
      .execute();
    await insertPayments(db, [
      paymentOf(cardCharged),
      paymentOf(cardRefunded),
      paymentOf(khaltiCharged, { method: "khalti" }),
      paymentOf(khaltiOwed, { method: "khalti" }),
      paymentOf(switched, { method: "khalti" }),
      paymentOf(tomorrow, { method: "khalti" }),
    ]);
  });

  it("counts and sums what each method charged, owes back and refunded, and what none did", async () => {
    const { methods, outcomes } = await reports().summary(DAY);
    const none = { count: 0, sum: "0" };
    expect(methods).toEqual([
      {
        method: "khalti",
        outcomes: {
          charged: { count: 2, sum: "1249.5" },
          "refund-due": { count: 1, sum: "500" },
          refunded: none,
        },
      },
      {
        method: "telegram",
        outcomes: {
          charged: { count: 1, sum: "700" },
          "refund-due": none,
          refunded: { count: 1, sum: "300" },
        },
      },
      // Nobody paid in the bot for these (PAYMENT_MODE=none: the agents' top-ups).
      {
        method: null,
        outcomes: { charged: { count: 2, sum: "1400.50" }, "refund-due": none, refunded: none },
      },
    ]);
    // The methods add up to the outcomes.
    expect(outcomes.charged).toEqual({ count: 5, sum: "3350.00" });
    expect(outcomes["refund-due"]).toEqual({ count: 1, sum: "500" });
    expect(outcomes.refunded).toEqual({ count: 1, sum: "300" });
    // A period without any: no method at all.
    expect((await reports().summary({ first: "2026-10-01", last: "2026-10-01" })).methods).toEqual(
      [],
    );
  });

  it("gives each line the method and references of the payment that was applied", async () => {
    const byId = new Map((await collect(reports().rows(DAY))).map((row) => [row.id, row.payment]));
    expect(byId.get("khalti-charged")).toEqual({
      method: "khalti",
      paid: "1000.00",
      chargeId: "charge-khalti-charged",
      providerChargeId: "provider-khalti-charged",
      refund: "none",
    });
    expect(byId.get("switched")).toEqual({
      method: "khalti",
      paid: "250.00",
      chargeId: "pidx-switched",
      providerChargeId: "khalti-txn-switched",
      refund: "none",
    });
    // Not paid: the method it asked for, no references.
    expect(byId.get("khalti-unpaid")).toMatchObject({ method: "khalti", chargeId: null });
    expect(byId.get("card-waiting")).toMatchObject({ method: "telegram", chargeId: null });
    expect(byId.get("agent-7")).toBeNull();
  });
});
