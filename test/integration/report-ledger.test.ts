// The finance report's reads of the ledger, on a real PostgreSQL server and on the embedded
// PGlite: exact sums counted by the database, the provider's calendar days, every purchase of
// a period read once in order, page after page.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerConnection } from "../../src/adapters/ledger/connection.js";
import { LedgerReports } from "../../src/adapters/ledger/reports.js";
import type { ReportRow } from "../../src/domain/report.js";
import { insertRows, ledgerRow } from "../support/ledger-rows.js";
import { captureLogs } from "../support/log-capture.js";
import { ledgerEngines } from "../support/postgres.js";

const targets = ledgerEngines("report_ledger", 4);

// Kathmandu is 5:45 ahead: 2026-11-20 there is 2026-11-19T18:15Z to 2026-11-20T18:15Z.
const ZONE = "Asia/Kathmandu";
const DAY = { first: "2026-11-20", last: "2026-11-20" };
const at = (iso: string) => new Date(iso);

async function collect(rows: AsyncIterable<ReportRow>): Promise<ReportRow[]> {
  const all: ReportRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

describe.each(targets)("the ledger's reports on %s", (_, target) => {
  let ledger: LedgerConnection;
  let reports: LedgerReports;

  beforeAll(async () => {
    ledger = new LedgerConnection(await target(), { log: captureLogs().logger });
    await ledger.open();
    reports = new LedgerReports(ledger, ZONE);
    const gold = { bouquet_code: "TV-GOLD-M", bouquet_name: "Gold (MONTHLY)" };
    const iptv = { service: "iptv", bouquet_code: "IPTV-X", bouquet_name: "IPTV X" };
    await insertRows(ledger.db, [
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
    await insertRows(ledger.db, [
      ledgerRow({ created_at: "2026-11-20T13:00:00.000100Z", id: "micro-b" }),
      ledgerRow({ created_at: "2026-11-20T13:00:00.000200Z", id: "micro-a" }),
    ]);
  }, 60_000);
  afterAll(() => ledger.close());

  it("counts and sums the day's purchases by outcome, service and bouquet, exactly", async () => {
    const summary = await reports.summary(DAY);
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
    expect(await reports.payments(DAY, Date.now())).toEqual({
      received: none,
      refundDue: none,
      refunded: none,
      refundsDueNow: none,
      unsettled: none,
      chargedUnpaid: { count: 0, sum: "0" },
    });
    const rows = await collect(reports.rows(DAY));
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
    const summary = await reports.summary({ first: day, last: day });
    expect(summary.bouquets.map((b) => [b.code, b.count])).toEqual(
      Array.from({ length: 10 }, (_, i) => [`B${String(11 - i).padStart(2, "0")}`, 12 - i]),
    );
    const empty = await reports.summary({ first: "2026-10-01", last: "2026-10-31" });
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
      const rows = await collect(new LedgerReports(ledger, ZONE, pageSize).rows(DAY));
      expect(rows.map((row) => row.id)).toEqual(expected.map((row) => row.id));
    }
    const rows = await collect(reports.rows(DAY));
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
    expect(await reports.dailySales({ first: "2026-11-18", last: "2026-11-21" })).toEqual([
      { day: "2026-11-18", sum: "0" },
      { day: "2026-11-19", sum: "700" },
      { day: "2026-11-20", sum: "3985.305" },
      { day: "2026-11-21", sum: "700" },
    ]);
  });
});
