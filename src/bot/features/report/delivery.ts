// A whole report to one chat: the summary message (with the payments, where there are any), the
// CSV file (streamed from the ledger as it is uploaded) and the chart of sales per day.
import { type Api, InputFile } from "grammy";
import type { ReportPeriod } from "../../../domain/report.js";
import type { BotDeps } from "../../deps.js";
import { registeredLanguage } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import { salesChart } from "./chart.js";
import { reportCsv } from "./csv.js";
import { chartPeriod } from "./period.js";
import { paymentsText, periodName, summaryText } from "./views.js";

type ReportDeps = Pick<
  BotDeps,
  "reports" | "providerBalance" | "i18n" | "formatter" | "config" | "now"
>;

export async function sendReport(
  api: Api,
  chatId: number,
  locale: string,
  period: ReportPeriod,
  deps: ReportDeps,
): Promise<void> {
  const { reports, config } = deps;
  const zone = config.provider.timeZone;
  const t: Translate = (key, variables) => deps.i18n.t(locale, key, variables);
  const fmt = deps.formatter(locale);
  const verifyWindowMs = config.topup.verifyWindowMs;
  const summary = await reports.summary(period);
  // A payment should be charged or owed back once the verify window after it is over.
  const payments = await reports.payments(period, deps.now() - verifyWindowMs);
  const balance = await deps.providerBalance.expected();
  const parts = [
    summaryText(period, summary, zone, t, fmt),
    paymentsText(payments, verifyWindowMs, t, fmt),
    t("balance-expected", {
      amount: fmt.minor(balance.expectedMinor, config.payment?.minorDigits ?? 2),
    }),
  ];
  await api.sendMessage(chatId, parts.filter((part) => part !== null).join("\n\n"));
  // A supplier, not a stream: a retried upload reads the ledger afresh.
  const csv = new InputFile(
    () => reportCsv(reports.rows(period), zone, config.currency),
    `report-${period.first}${period.first === period.last ? "" : `_${period.last}`}.csv`,
  );
  await api.sendDocument(chatId, csv);
  const days = chartPeriod(period);
  const chart = await salesChart(await reports.dailySales(days), periodName(days));
  await api.sendPhoto(chatId, new InputFile(chart, "sales.png"), {
    caption: t("report-chart-title", { period: periodName(days) }),
  });
}

/** The daily report to one admin, in the language they last used with the bot. */
export async function sendDailyReport(
  api: Api,
  admin: number,
  period: ReportPeriod,
  deps: ReportDeps & Pick<BotDeps, "subscribers">,
): Promise<void> {
  await sendReport(api, admin, await registeredLanguage(deps.subscribers, admin), period, deps);
}
