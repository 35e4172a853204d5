// The Telegram bot: what it is handed (BotDeps), its middleware and features (bot/bot.ts), the
// daily report, and the long polling when no webhook is set.
import type { Bot } from "grammy";
import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import { RedisDailyReportMarks } from "../adapters/redis/daily-reports.js";
import { RedisPollingTurn } from "../adapters/redis/polling-turn.js";
import { ALLOWED_UPDATES, createBot } from "../bot/bot.js";
import type { CommandMenus } from "../bot/commands.js";
import type { BotContext } from "../bot/context.js";
import type { BotDeps } from "../bot/deps.js";
import { DailyReports } from "../bot/features/report/daily.js";
import { sendDailyReport } from "../bot/features/report/delivery.js";
import type { PurchaseRunner } from "../bot/features/topup/purchase.js";
import { Poller } from "../bot/polling.js";
import type { TelegramPorts } from "../bot/ports.js";
import { StaffRoles } from "../bot/shared/staff.js";
import type { Config } from "../config.js";
import { LookupLimit } from "../domain/lookup-limit.js";
import type { ProviderHealth } from "../domain/provider-health.js";
import type { Reconciliations } from "../domain/reconciliation-runs.js";
import type { Payments } from "./payments.js";
import type { Purchases } from "./purchases.js";
import type { Stores } from "./stores.js";
import type { Workers } from "./workers.js";

export interface TelegramBot {
  bot: Bot<BotContext>;
  /** The purchases the Confirm button started, in the background. */
  running: PurchaseRunner;
  /** Resolves when no update is being handled. */
  settled(): Promise<void>;
  /** Shutting down: polled confirmations kept nowhere are left with Telegram. */
  stopHolding(): void;
  /** Without a webhook: getUpdates by whichever instance holds the polling turn. */
  poller: Poller | undefined;
  /** With DAILY_REPORT_AT. */
  dailyReports: DailyReports | undefined;
  /** The command menus: set at start, and an admin's at their first message. */
  menus: CommandMenus;
  /** What the bot's features were handed: the Mini App's API calls the same. */
  deps: BotDeps;
}

export function createTelegramBot(parts: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  stores: Stores;
  telegram: TelegramPorts;
  provider: ProviderHealth;
  purchases: Purchases;
  payments: Payments | undefined;
  workers: Workers;
  reconciliations: Reconciliations;
}): TelegramBot {
  const { config, logger, stores, telegram, payments } = parts;
  const staff = new StaffRoles({
    roles: config.roles,
    adminUserIds: config.adminUserIds,
    supportChatIds: config.supportChatIds,
    now: Date.now,
  });
  const deps: BotDeps = {
    config,
    logger,
    metrics: parts.metrics,
    provider: parts.provider,
    topups: parts.purchases.topups,
    ...(payments && { payments: payments.service, refunds: payments.refunds }),
    purchases: stores.purchases,
    reports: stores.reports,
    providerBalance: stores.providerBalance,
    reconciliations: parts.reconciliations,
    checkBalance: async () => parts.purchases.balanceWatch?.check(),
    balanceAllows: async (price) => parts.purchases.balanceGuard?.allows(price) ?? true,
    gate: stores.gate,
    drafts: stores.drafts,
    listings: stores.listings,
    savedConnections: stores.savedConnections,
    reminders: stores.reminders,
    wakeReminders: () => parts.workers.reminders.wake(),
    cancels: stores.cancels,
    audit: stores.audit,
    staff,
    lookupRefs: stores.lookupRefs,
    lookupLimit: new LookupLimit(
      stores.lookupCounter,
      telegram.alerts,
      {
        limit: config.limits.lookups,
        windowMs: config.limits.lookupWindowMs,
        budgetPerHour: config.limits.lookupBudgetPerHour,
        isExempt: (userId) => staff.isListedStaff(userId),
      },
      logger,
    ),
    i18n: telegram.i18n,
    formatter: telegram.formatter,
    subscribers: stores.subscribers,
    broadcasts: stores.broadcasts,
    enqueueBroadcast: (id) => parts.workers.queue.enqueue(id),
    previewBroadcast: (chatId, language, content) =>
      telegram.broadcasts.send(chatId, language, content, true),
    now: Date.now,
    isStoreFailure: stores.isUnreachable,
  };
  const {
    bot,
    purchases: running,
    settled,
    stopHolding,
    menus,
  } = createBot(deps, telegram.outcomes, telegram.client, telegram.reachability);
  const at = config.dailyReportAt;
  const dailyReports = at
    ? new DailyReports(
        new RedisDailyReportMarks(stores.redis, stores.keys),
        (admin, period) => sendDailyReport(telegram.api, admin, period, deps),
        { at, zone: config.provider.timeZone, admins: config.adminUserIds },
        logger,
      )
    : undefined;
  const poller = config.webhook
    ? undefined
    : new Poller(
        bot,
        new RedisPollingTurn(stores.redis, stores.keys.pollingTurn, config.pollingLeaseMs),
        {
          leaseMs: config.pollingLeaseMs,
          concurrency: config.pollingConcurrency,
          pollTimeoutSeconds: config.telegram.pollTimeoutSeconds,
          allowedUpdates: ALLOWED_UPDATES,
        },
        logger,
      );
  return { bot, running, settled, stopHolding, poller, dailyReports, menus, deps };
}
