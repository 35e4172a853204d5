// The reconciliation's report as admins read it, and the file finance opens: a clean run in one
// line; counts per kind; findings still open from earlier days; drifts of balance readings;
// the CSV with a BOM, a header row, exact amounts and formulas neutralised.
import { describe, expect, it } from "vitest";
import { findingsCsv, reportText } from "../../src/bot/features/reconcile/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { ReconciliationReport, StoredFinding } from "../../src/domain/reconciliation-runs.js";

const i18n = new Translator();
const t = (key: string, variables?: Record<string, string | number>) =>
  i18n.t("en", key, variables);
const settings = { minorDigits: 2, zone: "Asia/Kathmandu", unaskable: false };
const fmt = new ValueFormatter("en", "Asia/Kathmandu", "NPR");
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
  providerTxns: "co-1=none",
  ledgerMinor: 70000n,
  outsideMinor: 69950n,
  nextStep: "check the price and refund the difference",
  ...over,
});
/** A report of these findings of its days and of earlier days, as the ledger would give them. */
const report = (
  findings: StoredFinding[] = [],
  earlier: StoredFinding[] = [],
  over: Partial<ReconciliationReport> = {},
): ReconciliationReport => {
  const counts = new Map<StoredFinding["kind"], number>();
  for (const f of findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return {
    run,
    purchases: 3,
    counts,
    settled: 0,
    earlier: { count: earlier.length, first: earlier.slice(0, 2) },
    drifts: [],
    rows: async function* () {
      yield* earlier;
      yield* findings;
    },
    ...over,
  };
};
const text = async (csv: NodeJS.ReadableStream) => {
  const parts: Buffer[] = [];
  for await (const part of csv) parts.push(Buffer.from(part as Buffer));
  return Buffer.concat(parts).toString("utf8");
};

describe("the reconciliation report", () => {
  it("says a clean day in one line", () => {
    expect(reportText(report(), t, fmt, settings)).toBe(
      "✅ 2026-11-20: every purchase matched (3 purchases).",
    );
  });

  it("counts the findings per kind, lists earlier ones and the drift of a reading", () => {
    const message = reportText(
      report(
        [
          finding(),
          finding({ id: "13", purchaseId: "p-2" }),
          finding({ id: "14", kind: "not-asked" }),
        ],
        [
          finding({ id: "3", day: "2026-11-18", kind: "paid-not-settled" }),
          finding({ id: "4", day: "2026-11-18" }),
          finding({ id: "5", day: "2026-11-19" }),
        ],
        {
          drifts: [
            { at: new Date("2026-11-20T06:15:00Z"), readingMinor: 100000n, expectedMinor: 100050n },
            { at: new Date("2026-11-20T07:15:00Z"), readingMinor: 5n, expectedMinor: 5n },
          ],
        },
      ),
      t,
      fmt,
      { ...settings, unaskable: true },
    );
    expect(message).toContain("Reconciliation of 2026-11-20</b>: 3 purchases, 3 findings open.");
    expect(message).toContain("• Amounts differ: 2");
    expect(message).toContain("• Could not be asked: 1");
    expect(message).toContain("Still open from earlier days: 3");
    expect(message).toContain("#3 2026-11-18: Paid, neither topped up nor refunded, purchase p-1");
    expect(message).toContain("#4 2026-11-18: Amounts differ, purchase p-1");
    expect(message).not.toContain("#5 ");
    expect(message).toContain("… and 1 more (in the file).");
    // Amounts with the currency and separators ("NPR 1,000.00"); Intl's no-break space.
    expect(message.replace(/\u00a0/g, " ")).toContain(
      "Provider balance read at 2026-11-20 12:00: NPR 1,000.00, expected NPR 1,000.50 (difference -NPR 0.50).",
    );
    expect(message.match(/Provider balance read/g)).toHaveLength(1);
    expect(message).toContain("Card payments (Telegram Payments) cannot be asked");
  });

  it("speaks Nepali amounts with the locale's digits and separators", () => {
    const ne = (key: string, variables?: Record<string, string | number>) =>
      i18n.t("ne", key, variables);
    const drift = {
      at: new Date("2026-11-20T06:15:00Z"),
      readingMinor: 12345678n,
      expectedMinor: 0n,
    };
    const message = reportText(
      report([finding()], [], { drifts: [drift] }),
      ne,
      new ValueFormatter("ne", "Asia/Kathmandu", "NPR"),
      settings,
    );
    expect(message.replace(/\u00a0/g, " ")).toContain("नेरू १,२३,४५६.७८");
  });

  it("says how many payments the bot settled itself, clean or not", () => {
    const clean = reportText(report([], [], { settled: 2 }), t, fmt, settings);
    expect(clean.split("\n")).toEqual([
      "✅ 2026-11-20: every purchase matched (3 purchases).",
      "✔️ Settled by the bot: 2 payments it had missed, now recorded, with a top-up started or a refund owed.",
    ]);
    expect(reportText(report([finding()]), t, fmt, settings)).not.toContain("Settled by the bot");
    const earlier = reportText(
      report([], [finding({ providerTxns: "co-1=TXN-9" })]),
      t,
      fmt,
      settings,
    );
    expect(earlier).toContain(
      "• #12 2026-11-20: Amounts differ, purchase p-1, provider co-1=TXN-9",
    );
  });

  it("writes every open finding to a CSV a spreadsheet opens, formulas neutralised", async () => {
    const csv = await text(
      findingsCsv(
        report(
          [finding({ outsideIds: '=HYPERLINK("x")', ledgerMinor: 90071992547409993n })],
          [finding({ id: "3", day: "2026-11-18", ledgerMinor: null })],
        ),
        2,
      ),
    );
    expect(
      csv.startsWith(
        "\uFEFFfinding_id,day,kind,purchase_id,outside_ids,provider_txns,ledger_amount,outside_amount,next_step\r\n",
      ),
    ).toBe(true);
    const lines = csv.trim().split("\r\n");
    expect(lines[1]).toBe(
      "3,2026-11-18,amount-differs,p-1,khalti:pidx-1,co-1=none,,699.50,check the price and refund the difference",
    );
    expect(lines[2]).toContain(',"\'=HYPERLINK(""x"")",co-1=none,900719925474099.93,699.50,');
  });

  it("writes a file of any length in chunks, with one header", async () => {
    const many = Array.from({ length: 1_234 }, (_, i) => finding({ id: String(i) }));
    const lines = (await text(findingsCsv(report(many), 2))).trim().split("\r\n");
    expect(lines).toHaveLength(1_235);
    expect(lines.filter((line) => line.includes("finding_id"))).toHaveLength(1);
  });
});
