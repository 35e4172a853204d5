// The finance report's reads of payments (PAYMENT_MODE=telegram), on a real PostgreSQL server
// and on the embedded PGlite: how each payment phase counts among the outcomes, what is open,
// the payments received, owed back and refunded with exact sums per currency, the mismatches,
// and each purchase's payment in the file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerConnection } from "../../src/adapters/ledger/connection.js";
import { LedgerReports } from "../../src/adapters/ledger/reports.js";
import type { ReportRow } from "../../src/domain/report.js";
import {
  insertPayments,
  insertRows,
  ledgerRow,
  paidLedgerRow,
  paymentOf,
  strayPayment,
} from "../support/ledger-rows.js";
import { captureLogs } from "../support/log-capture.js";
import { ledgerEngines } from "../support/postgres.js";

const targets = ledgerEngines("report_payments", 4);

// Kathmandu is 5:45 ahead: 2026-11-10 there is 2026-11-09T18:15Z to 2026-11-10T18:15Z.
const ZONE = "Asia/Kathmandu";
const DAY = { first: "2026-11-10", last: "2026-11-10" };
const at = (iso: string) => new Date(iso);
/** The verify window began then: a payment received before should be settled by now. */
const SETTLED_BEFORE = Date.parse("2026-11-10T10:00:00Z");

async function collect(rows: AsyncIterable<ReportRow>): Promise<ReportRow[]> {
  const all: ReportRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

describe.each(targets)("payments in the ledger's reports on %s", (_, target) => {
  let ledger: LedgerConnection;
  let reports: LedgerReports;

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

  beforeAll(async () => {
    ledger = new LedgerConnection(await target(), { log: captureLogs().logger });
    await ledger.open();
    reports = new LedgerReports(ledger, ZONE);
    await insertRows(ledger.db, [
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
    await insertPayments(ledger.db, [
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
  }, 60_000);
  afterAll(() => ledger.close());

  it("counts each payment phase as its own outcome, and open what still waits", async () => {
    const summary = await reports.summary(DAY);
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
    const payments = await reports.payments(DAY, SETTLED_BEFORE);
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
    const early = await reports.payments(DAY, Date.parse("2026-11-10T08:59:00Z"));
    expect(early.unsettled).toEqual({ count: 0, sums: [] });
    const late = await reports.payments(DAY, Date.parse("2026-11-10T12:00:00Z"));
    expect(late.unsettled).toEqual({ count: 2, sums: [{ currency: "NPR", sum: "700.50" }] });
  });

  it("has nothing to say of payments on a day without any, but the refunds due of any day", async () => {
    const payments = await reports.payments(
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
      const rows = await collect(new LedgerReports(ledger, ZONE, pageSize).rows(DAY));
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
    const byId = new Map((await collect(reports.rows(DAY))).map((row) => [row.id, row.payment]));
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
