// The report's message: counts and exact sums by outcome, by service, by payment method, the
// best sellers and what is open now; then, only where subscribers pay in the bot, the payments. At most about
// 40 short lines: well under Telegram's 4096 characters.
import { SERVICE_KINDS } from "../../../domain/model.js";
import {
  METHOD_OUTCOMES,
  type MethodTotals,
  type PaymentSummary,
  type PaymentTotals,
  REPORT_OUTCOMES,
  type ReportOutcome,
  type ReportPeriod,
  type ReportSummary,
  type Totals,
} from "../../../domain/report.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import type { Translate } from "../../shared/labels.js";
import { methodName } from "../../shared/method-labels.js";
import type { ValueFormatter } from "../../shared/values.js";

/** Shown whatever their count; every other outcome only when there is any. */
const ALWAYS_SHOWN: ReadonlySet<ReportOutcome> = new Set([
  "charged",
  "declined",
  "not-charged",
  "unknown",
]);

/**
 * One line a payment method: charged always, owed back and refunded when there are any. A
 * method without any of those has no line.
 */
function methodLine(
  { method, outcomes }: MethodTotals,
  t: Translate,
  figures: (totals: Totals) => { count: number; sum: string },
): string {
  const parts = METHOD_OUTCOMES.filter(
    (outcome) => outcome === "charged" || outcomes[outcome].count > 0,
  ).map((outcome) => t(`report-method-${outcome}`, figures(outcomes[outcome])));
  return t("report-method-line", { method: methodName(method, t), figures: parts.join("; ") });
}

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
  ];
  for (const outcome of REPORT_OUTCOMES) {
    const totals = summary.outcomes[outcome];
    if (ALWAYS_SHOWN.has(outcome) || totals.count > 0) {
      lines.push(t(`report-${outcome}`, figures(totals)));
    }
  }
  lines.push("", `<b>${t("report-by-service")}</b>`);
  for (const service of SERVICE_KINDS) {
    const totals = figures(summary.services[service]);
    lines.push(t("report-line", { name: t(`service-${service}`), ...totals }));
  }
  if (summary.methods.length > 0) {
    lines.push("", `<b>${t("report-by-method")}</b>`);
    for (const method of summary.methods) lines.push(methodLine(method, t, figures));
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

/**
 * The payments' part of the message: null when there is nothing to say (no payment on these
 * days, none owed back, no mismatch), as always with PAYMENT_MODE=none. A sum in each currency
 * paid in, never added across currencies.
 */
export function paymentsText(
  payments: PaymentSummary,
  verifyWindowMs: number,
  t: Translate,
  fmt: ValueFormatter,
): string | null {
  const { received, refundDue, refunded, refundsDueNow, unsettled, chargedUnpaid } = payments;
  if (received.count + refundsDueNow.count + chargedUnpaid.count === 0) return null;
  const money = (totals: PaymentTotals) => ({
    count: totals.count,
    sum:
      totals.sums.length === 0
        ? fmt.amount("0")
        : totals.sums.map(({ currency, sum }) => fmt.amount(sum, currency)).join(" + "),
  });
  const lines = [
    `<b>${t("report-payments")}</b>`,
    t("report-payments-received", money(received)),
    t("report-payments-refund-due", money(refundDue)),
    t("report-payments-refunded", money(refunded)),
    t("report-refunds-due-now", money(refundsDueNow)),
  ];
  if (unsettled.count > 0) {
    const seconds = Math.round(verifyWindowMs / 1000);
    lines.push(t("report-payments-unsettled", { seconds, ...money(unsettled) }));
  }
  if (chargedUnpaid.count > 0) {
    const sum = fmt.amount(chargedUnpaid.sum);
    lines.push(t("report-charged-unpaid", { count: chargedUnpaid.count, sum }));
  }
  return lines.join("\n");
}
