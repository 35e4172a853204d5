// The report's message: counts and exact sums by outcome, by service, the best sellers and
// what is open now. At most about 30 short lines: far under Telegram's 4096 characters.
import { SERVICE_KINDS } from "../../../domain/model.js";
import type { ReportPeriod, ReportSummary, Totals } from "../../../domain/report.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";

/** Shown apart, in this order; "pending" only when there is any. */
const OUTCOME_LINES = ["charged", "declined", "not-charged", "unknown"] as const;

export const periodName = (period: ReportPeriod) =>
  period.first === period.last ? period.first : `${period.first} – ${period.last}`;

export function summaryText(
  period: ReportPeriod,
  summary: ReportSummary,
  zone: string,
  t: Translate,
  fmt: ValueFormatter,
): string {
  const figures = (totals: Totals) => ({ count: totals.count, sum: fmt.amount(totals.sum) });
  const lines = [
    `<b>${t("report-title", { period: periodName(period) })}</b>`,
    t("report-days", { zone }),
    "",
    ...OUTCOME_LINES.map((outcome) => t(`report-${outcome}`, figures(summary.outcomes[outcome]))),
  ];
  if (summary.outcomes.pending.count > 0) {
    lines.push(t("report-pending", figures(summary.outcomes.pending)));
  }
  lines.push("", `<b>${t("report-by-service")}</b>`);
  for (const service of SERVICE_KINDS) {
    const totals = figures(summary.services[service]);
    lines.push(t("report-line", { name: t(`service-${service}`), ...totals }));
  }
  lines.push("", `<b>${t("report-best-sellers")}</b>`);
  if (summary.bouquets.length === 0) lines.push(t("report-no-sales"));
  summary.bouquets.forEach((bouquet, index) => {
    // The name as sold, period included: "Gold (MONTHLY)" and "Gold (YEARLY)" are two lines.
    const seller = {
      rank: index + 1,
      name: escapeHtml(truncate(bouquet.name, 48)),
      code: escapeHtml(truncate(bouquet.code, 24)),
    };
    lines.push(t("report-best-seller", { ...seller, ...figures(bouquet) }));
  });
  lines.push("", t("report-open", figures(summary.open)));
  return lines.join("\n");
}
