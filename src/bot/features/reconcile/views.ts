// The reconciliation's report as an admin reads it: one line for a clean run, else the counts
// per kind of finding, the findings still open from earlier days and the drift of each reading
// of the provider balance; and the file finance works from: every open finding with its ids,
// exact amounts and next step (RFC 4180, UTF-8 with a BOM, formulas neutralised as in /report).
// No phone number or name is in either: a purchase is named by its id.
import { stringify } from "csv-stringify/sync";
import { DateTime } from "luxon";
import { formatMinorUnits } from "../../../domain/provider-balance.js";
import type { ReconciliationReport, StoredFinding } from "../../../domain/reconciliation-runs.js";
import type { Translate } from "../../shared/labels.js";

/** Earlier findings listed in the message; the rest are in the file. */
const EARLIER_LISTED = 10;

const COLUMNS = [
  "finding_id",
  "day",
  "kind",
  "purchase_id",
  "outside_ids",
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
  settings: ViewSettings,
): string {
  const money = (minor: bigint) => formatMinorUnits(minor, settings.minorDigits);
  const days = daysName(report.run.firstDay, report.run.lastDay);
  const drifts = report.drifts.filter((d) => d.readingMinor !== d.expectedMinor);
  const lines: string[] = [];
  if (report.findings.length === 0) {
    lines.push(t("reconcile-clean", { days, purchases: report.purchases }));
  } else {
    lines.push(
      t("reconcile-title", {
        days,
        purchases: report.purchases,
        count: report.findings.length,
      }),
    );
    const counts = new Map<string, number>();
    for (const f of report.findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    for (const [kind, count] of counts) {
      lines.push(t("reconcile-kind", { label: t(`finding-${kind}`), count }));
    }
  }
  if (report.earlier.length > 0) {
    lines.push("", t("reconcile-earlier", { count: report.earlier.length }));
    for (const f of report.earlier.slice(0, EARLIER_LISTED)) {
      lines.push(
        t("reconcile-earlier-line", {
          id: f.id,
          day: f.day,
          label: t(`finding-${f.kind}`),
          purchase: f.purchaseId,
        }),
      );
    }
    if (report.earlier.length > EARLIER_LISTED) {
      lines.push(t("reconcile-more", { count: report.earlier.length - EARLIER_LISTED }));
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
  if (report.findings.length + report.earlier.length > 0) {
    lines.push("", t("reconcile-resolve-hint"));
  }
  if (settings.unaskable && report.purchases > 0) lines.push(t("reconcile-telegram"));
  return lines.join("\n");
}

/** Every open finding of the report, the earlier days' first. */
export function findingsCsv(report: ReconciliationReport, minorDigits: number): Buffer {
  const money = (minor: bigint | null) =>
    minor === null ? "" : formatMinorUnits(minor, minorDigits);
  const row = (f: StoredFinding) => [
    f.id,
    f.day,
    f.kind,
    f.purchaseId,
    f.outsideIds,
    money(f.ledgerMinor),
    money(f.outsideMinor),
    f.nextStep,
  ];
  const text = stringify([...report.earlier, ...report.findings].map(row), {
    columns: COLUMNS,
    header: true,
    bom: true,
    record_delimiter: "windows",
    escape_formulas: true,
  });
  return Buffer.from(text);
}
