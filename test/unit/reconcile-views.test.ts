// The reconciliation's report as admins read it, and the file finance opens: a clean run in one
// line; counts per kind; findings still open from earlier days; drifts of balance readings;
// the CSV with a BOM, a header row, exact amounts and formulas neutralised.
import { describe, expect, it } from "vitest";
import { findingsCsv, reportText } from "../../src/bot/features/reconcile/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import type { ReconciliationReport, StoredFinding } from "../../src/domain/reconciliation-runs.js";

const i18n = new Translator();
const t = (key: string, variables?: Record<string, string | number>) =>
  i18n.t("en", key, variables);
const settings = { minorDigits: 2, zone: "Asia/Kathmandu", unaskable: false };
const run = {
  id: "7",
  firstDay: "2026-11-20",
  lastDay: "2026-11-20",
  startedBy: 1,
  resumeAfter: null,
  purchases: 3,
};
const finding = (over: Partial<StoredFinding> = {}): StoredFinding => ({
  id: "12",
  day: "2026-11-20",
  purchaseId: "p-1",
  kind: "amount-differs",
  outsideIds: "khalti:pidx-1",
  ledgerMinor: 70000n,
  outsideMinor: 69950n,
  nextStep: "check the price and refund the difference",
  ...over,
});
const report = (over: Partial<ReconciliationReport> = {}): ReconciliationReport => ({
  run,
  purchases: 3,
  findings: [],
  earlier: [],
  drifts: [],
  ...over,
});

describe("the reconciliation report", () => {
  it("says a clean day in one line", () => {
    expect(reportText(report(), t, settings)).toBe(
      "✅ 2026-11-20: every purchase matched (3 purchases).",
    );
  });

  it("counts the findings per kind, lists earlier ones and the drift of a reading", () => {
    const text = reportText(
      report({
        findings: [
          finding(),
          finding({ id: "13", purchaseId: "p-2" }),
          finding({ id: "14", kind: "not-asked" }),
        ],
        earlier: [finding({ id: "3", day: "2026-11-18", kind: "paid-not-settled" })],
        drifts: [
          { at: new Date("2026-11-20T06:15:00Z"), readingMinor: 100000n, expectedMinor: 100050n },
          { at: new Date("2026-11-20T07:15:00Z"), readingMinor: 5n, expectedMinor: 5n },
        ],
      }),
      t,
      { ...settings, unaskable: true },
    );
    expect(text).toContain("Reconciliation of 2026-11-20</b>: 3 purchases, 3 findings open.");
    expect(text).toContain("• Amounts differ: 2");
    expect(text).toContain("• Could not be asked: 1");
    expect(text).toContain("Still open from earlier days: 1");
    expect(text).toContain("#3 2026-11-18: Paid, neither topped up nor refunded, purchase p-1");
    expect(text).toContain(
      "Provider balance read at 2026-11-20 12:00: 1000.00, expected 1000.50 (difference -0.50).",
    );
    expect(text.match(/Provider balance read/g)).toHaveLength(1);
    expect(text).toContain("Card payments (Telegram Payments) cannot be asked");
  });

  it("writes every open finding to a CSV a spreadsheet opens, formulas neutralised", () => {
    const csv = findingsCsv(
      report({
        findings: [finding({ outsideIds: '=HYPERLINK("x")', ledgerMinor: 90071992547409993n })],
        earlier: [finding({ id: "3", day: "2026-11-18", ledgerMinor: null })],
      }),
      2,
    ).toString("utf8");
    expect(
      csv.startsWith(
        "\uFEFFfinding_id,day,kind,purchase_id,outside_ids,ledger_amount,outside_amount,next_step\r\n",
      ),
    ).toBe(true);
    const lines = csv.trim().split("\r\n");
    expect(lines[1]).toBe(
      "3,2026-11-18,amount-differs,p-1,khalti:pidx-1,,699.50,check the price and refund the difference",
    );
    expect(lines[2]).toContain(',"\'=HYPERLINK(""x"")",900719925474099.93,699.50,');
  });
});
