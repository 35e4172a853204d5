// A finished run's report: to the admin who asked for it, or (the daily schedule's) to every
// admin, each in the language they last used with the bot; the file only when some finding is
// open. One admin who cannot be reached does not make the others get it twice: it fails (and
// is sent again later) only when nobody got it.
import { type Api, InputFile } from "grammy";
import type { ReconciliationReport } from "../../../domain/reconciliation-runs.js";
import type { BotDeps } from "../../deps.js";
import { registeredLanguage } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import { daysName, findingsCsv, hasFile, reportText } from "./views.js";

type DeliveryDeps = Pick<BotDeps, "i18n" | "config" | "subscribers" | "logger" | "formatter">;

export async function sendReconciliation(
  api: Api,
  report: ReconciliationReport,
  deps: DeliveryDeps,
): Promise<void> {
  const { config } = deps;
  const minorDigits = config.payment?.minorDigits ?? 2;
  const settings = {
    minorDigits,
    zone: config.provider.timeZone,
    unaskable: config.payment?.methods.some((m) => m.method === "telegram") ?? false,
  };
  const recipients = report.run.startedBy === null ? config.adminUserIds : [report.run.startedBy];
  let lastError: unknown = null;
  let delivered = 0;
  for (const admin of recipients) {
    try {
      await sendTo(api, admin, report, deps, settings);
      delivered++;
    } catch (error) {
      lastError = error;
      deps.logger.warn({ err: error, admin, run: report.run.id }, "reconciliation not sent");
    }
  }
  if (delivered === 0 && lastError !== null) throw lastError;
}

async function sendTo(
  api: Api,
  admin: number,
  report: ReconciliationReport,
  deps: DeliveryDeps,
  settings: Parameters<typeof reportText>[3],
): Promise<void> {
  const locale = await registeredLanguage(deps.subscribers, admin);
  const t: Translate = (key, variables) => deps.i18n.t(locale, key, variables);
  const text = reportText(report, t, deps.formatter(locale), settings);
  await api.sendMessage(admin, text, { parse_mode: "HTML" });
  if (!hasFile(report)) return;
  const days = daysName(report.run.firstDay, report.run.lastDay).replace("..", "_");
  await api.sendDocument(
    admin,
    // A supplier, not a stream: a retried upload reads the ledger afresh.
    new InputFile(() => findingsCsv(report, settings.minorDigits), `reconciliation-${days}.csv`),
  );
}
