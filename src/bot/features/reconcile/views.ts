// The reconciliation's report as an admin reads it: one line for a clean run, else the counts
// per kind of finding, the findings still open from earlier days and the drift of each reading
// of the provider balance; and the file finance works from: every open finding with its ids,
// exact amounts and next step (RFC 4180, UTF-8 with a BOM, formulas neutralised as in /report).
// No phone number or name is in either: a purchase is named by its id.
import { Readable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import { DateTime } from "luxon";
import { formatMinorUnits } from "../../../domain/provider-balance.js";
import type { ReconciliationReport } from "../../../domain/reconciliation-runs.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";

/** Lines of the file written at a time. */
const LINES_PER_CHUNK = 500;

const COLUMNS = [
  "finding_id",
  "day",
  "kind",
  "purchase_id",
  "outside_ids",
  "provider_txns",
  "ledger_amount",
  "outside_amount",
  "next_step",
];

export const daysName = (first: string, last: string) =>
  first === last ? first : `${first}..${last}`;

interface ViewSettings {
  minorDigits: number;
  zone: string;
  /** Some payment method has no API to ask (Telegram Payments). */
  unaskable: boolean;
}

export function reportText(
  report: ReconciliationReport,
  t: Translate,
  fmt: ValueFormatter,
  settings: ViewSettings,
): string {
  // The currency and the reader's separators; the file keeps plain decimals for finance.
  const money = (minor: bigint) => fmt.minor(minor, settings.minorDigits);
  const days = daysName(report.run.firstDay, report.run.lastDay);
  const drifts = report.drifts.filter((d) => d.readingMinor !== d.expectedMinor);
  const open = openOf(report);
  const lines: string[] = [];
  if (open === 0) {
    lines.push(t("reconcile-clean", { days, purchases: report.purchases }));
  } else {
    lines.push(
      t("reconcile-title", {
        days,
        purchases: report.purchases,
        count: open,
      }),
    );
    for (const [kind, count] of report.counts) {
      lines.push(t("reconcile-kind", { label: t(`finding-${kind}`), count }));
    }
  }
  if (report.settled > 0) lines.push(t("reconcile-settled", { count: report.settled }));
  const earlier = report.earlier;
  if (earlier.count > 0) {
    lines.push("", t("reconcile-earlier", { count: earlier.count }));
    for (const f of earlier.first) {
      lines.push(
        t("reconcile-earlier-line", {
          id: f.id,
          day: f.day,
          label: t(`finding-${f.kind}`),
          purchase: f.purchaseId,
          transactions: f.providerTxns || "—",
        }),
      );
    }
    if (earlier.count > earlier.first.length) {
      lines.push(t("reconcile-more", { count: earlier.count - earlier.first.length }));
    }
  }
  for (const d of drifts) {
    lines.push(
      t("reconcile-drift", {
        at: DateTime.fromJSDate(d.at, { zone: settings.zone }).toFormat("yyyy-MM-dd HH:mm"),
        reading: money(d.readingMinor),
        expected: money(d.expectedMinor),
        drift: money(d.readingMinor - d.expectedMinor),
      }),
    );
  }
  if (hasFile(report)) {
    lines.push("", t("reconcile-resolve-hint"));
  }
  if (settings.unaskable && report.purchases > 0) lines.push(t("reconcile-telegram"));
  return lines.join("\n");
}

/** Open findings of the run's days. */
const openOf = (report: ReconciliationReport) =>
  [...report.counts.values()].reduce((sum, count) => sum + count, 0);

/** A file goes with the report when some finding is open, of its days or earlier ones. */
export const hasFile = (report: ReconciliationReport) => openOf(report) + report.earlier.count > 0;

async function* chunks(report: ReconciliationReport, minorDigits: number) {
  const money = (minor: bigint | null) =>
    minor === null ? "" : formatMinorUnits(minor, minorDigits);
  let lines: string[][] = [];
  let first = true;
  const text = () => {
    const chunk = stringify(lines, {
      columns: COLUMNS,
      header: first,
      bom: first,
      record_delimiter: "windows",
      escape_formulas: true,
    });
    first = false;
    lines = [];
    return Buffer.from(chunk);
  };
  for await (const f of report.rows()) {
    lines.push([
      f.id,
      f.day,
      f.kind,
      f.purchaseId,
      f.outsideIds,
      f.providerTxns,
      money(f.ledgerMinor),
      money(f.outsideMinor),
      f.nextStep,
    ]);
    if (lines.length === LINES_PER_CHUNK) yield text();
  }
  if (first || lines.length > 0) yield text();
}

/** Every open finding of the report, the earlier days' first, as the ledger's pages arrive. */
export function findingsCsv(report: ReconciliationReport, minorDigits: number): Readable {
  return Readable.from(chunks(report, minorDigits));
}
