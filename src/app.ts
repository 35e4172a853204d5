// The composition root: builds every part from the configuration, wires the adapters into
// the domain and the bot, and starts and stops them.

import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { getHeapStatistics } from "node:v8";
import { Api, BotError } from "grammy";
import type { Redis } from "ioredis";
import { HttpServer, type WebhookRejection } from "./adapters/http/server.js";
import {
  LedgerConnection,
  type LedgerTarget,
  isUnreachable as ledgerUnreachable,
} from "./adapters/ledger/connection.js";
import { RedisPurchaseImport } from "./adapters/ledger/import-from-redis.js";
import { LedgerPurchases } from "./adapters/ledger/purchase-store.js";
import { LedgerReports } from "./adapters/ledger/reports.js";
import type { Logger } from "./adapters/logger.js";
import { Metrics } from "./adapters/metrics.js";
import { FilePaymentJournal } from "./adapters/payments/journal.js";
import { KhaltiPayments } from "./adapters/payments/khalti.js";
import { TelegramPayments } from "./adapters/payments/telegram-payments.js";
import { ProviderClient } from "./adapters/provider/client.js";
import {
  BroadcastQueue,
  type BroadcastRunner,
  InProcessBroadcasts,
} from "./adapters/queue/broadcasts.js";
import { RedisAlertLedger } from "./adapters/redis/alert-ledger.js";
import { RedisBroadcasts } from "./adapters/redis/broadcasts.js";
import { RedisCancelMarks } from "./adapters/redis/cancels.js";
import { RedisConnection } from "./adapters/redis/connection.js";
import { RedisDailyReportMarks } from "./adapters/redis/daily-reports.js";
import { RedisDrafts } from "./adapters/redis/drafts.js";
import { checkDurability } from "./adapters/redis/durability.js";
import { redisKeys } from "./adapters/redis/keys.js";
import { RedisListings } from "./adapters/redis/listings.js";
import { RedisLookupCounter } from "./adapters/redis/lookup-counter.js";
import { RedisLookupRefs } from "./adapters/redis/lookup-refs.js";
import { RedisPollingTurn } from "./adapters/redis/polling-turn.js";
import { RedisReminders } from "./adapters/redis/reminders.js";
import { RedisSavedConnections } from "./adapters/redis/saved-connections.js";
import { RedisSubscribers } from "./adapters/redis/subscribers.js";
import { RedisAuditLog } from "./adapters/redis/support-audit.js";
import { RedisUpdateGate } from "./adapters/redis/update-gate.js";
import { ALLOWED_UPDATES, createBot } from "./bot/bot.js";
import { registerCommands } from "./bot/commands.js";
import type { BotDeps } from "./bot/deps.js";
import { TelegramBroadcastPorts } from "./bot/features/broadcast/delivery.js";
import { TelegramInvoices } from "./bot/features/payments/invoices.js";
import { khaltiReturnPage } from "./bot/features/payments/khalti-return.js";
import { TelegramPaymentLinks } from "./bot/features/payments/payment-links.js";
import { TelegramRefundChannel } from "./bot/features/payments/refund-channel.js";
import { TelegramReminders } from "./bot/features/reminders/delivery.js";
import { DailyReports } from "./bot/features/report/daily.js";
import { sendDailyReport } from "./bot/features/report/delivery.js";
import { renewButton } from "./bot/features/topup/callback-data.js";
import { TelegramOutcomes } from "./bot/features/topup/outcomes.js";
import { Poller } from "./bot/polling.js";
import { TelegramAlerts } from "./bot/shared/alerts.js";
import { configureApi } from "./bot/shared/api.js";
import { isPaymentConfirmation } from "./bot/shared/confirmation-hold.js";
import { Translator } from "./bot/shared/i18n.js";
import { StaffRoles } from "./bot/shared/staff.js";
import { ValueFormatter } from "./bot/shared/values.js";
import type { Config } from "./config.js";
import { BroadcastSender } from "./domain/broadcast.js";
import { LookupLimit } from "./domain/lookup-limit.js";
import { OutcomeTeller } from "./domain/outcomes.js";
import type { PaymentSystem } from "./domain/payment.js";
import { ConfirmationNotKept, PaymentService } from "./domain/payment-service.js";
import { ProviderHealth } from "./domain/provider-health.js";
import { PurchaseBook } from "./domain/purchase-book.js";
import { Reconciler } from "./domain/reconciler.js";
import { RefundDesk } from "./domain/refunds.js";
import { ReminderSender } from "./domain/reminders.js";
import { TopupService } from "./domain/topup.js";

const SESSION_TTL_SECONDS = 90 * 86_400;
/** A chat's turn lapses this long after its instance died; an update waits at most a minute. */
const CHAT_LOCK_MS = 10_000;
const CHAT_WAIT_MS = 60_000;
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
/** Telegram is answered this soon at the latest; the update's handling goes on after. */
const WEBHOOK_ANSWER_MS = 3_000;
/** Shutting down, purchases still waiting for an answer are handed over this long before the grace ends. */
const HAND_OVER_BEFORE_END_MS = 5_000;
/** Refund calls to a payment system's API before a person takes over. */
const REFUND_TRIES = 3;
/** Where Khalti sends the buyer back, under PUBLIC_URL. */
const KHALTI_RETURN_PATH = "/pay/khalti/return";
/** Khalti takes no less than NPR 10. */
const KHALTI_MINIMUM_PAISA = 1_000;

export interface App {
  readonly metrics: Metrics;
  start(): Promise<void>;
  /**
   * Graceful: stops taking work, finishes the updates and purchases under way (handing over
   * what is still unknown before the grace ends), closes queues and Redis. Idempotent.
   */
  stop(): Promise<void>;
}

export interface AppOptions {
  /**
   * A Redis stand-in (the offline playground's in-process storage). Without it the bot connects
   * to REDIS_URL, and broadcasts run on BullMQ; with it they run in this process.
   */
  redis?: Redis;
  /** Where the ledger lives instead of the configured one (the playground: in memory). */
  ledger?: LedgerTarget;
}

export function createApp(config: Config, logger: Logger, options: AppOptions = {}): App {
  const metrics = new Metrics();
  const connection = options.redis
    ? undefined
    : new RedisConnection(config.redis, {
        commandTimeoutMs: config.redis.commandTimeoutMs,
        log: logger,
        onError: () => metrics.redisErrors.inc(),
      });
  const redis = options.redis ?? (connection as RedisConnection).redis;
  const keys = redisKeys(config.redis.keyPrefix);
  const i18n = new Translator();
  const subscribers = new RedisSubscribers(redis, keys);
  const formatters = new Map<string, ValueFormatter>();
  const formatter = (locale: string) => {
    let found = formatters.get(locale);
    if (!found) {
      found = new ValueFormatter(locale, config.provider.timeZone, config.currency);
      formatters.set(locale, found);
    }
    return found;
  };
  const telegramApi = (retryAttempts?: number) =>
    configureApi(new Api(config.botToken, { apiRoot: config.telegramApiRoot }), retryAttempts);
  // Outside updates: outcomes and alerts with the bot's retries; broadcasts pace themselves.
  const outsideApi = telegramApi(config.telegram.retryAttempts);

  const client = new ProviderClient({ ...config.provider, logger });
  const alerts = new TelegramAlerts(
    outsideApi,
    i18n,
    subscribers,
    {
      adminUserIds: config.adminUserIds,
      supportChatIds: config.supportChatIds,
      probeSeconds: config.providerHealth.probeAfterMs / 1000,
    },
    logger,
  );
  const provider = new ProviderHealth(
    client,
    alerts,
    new RedisAlertLedger(redis, keys),
    {
      ...config.providerHealth,
      onCall: (operation, outcome, seconds) =>
        metrics.providerCalls.observe({ operation, outcome }, seconds),
      onAlert: (kind) => metrics.alerts.inc({ kind }),
    },
    logger,
  );

  const ledger = new LedgerConnection(options.ledger ?? config.ledger, {
    log: logger,
  });
  const purchases = new LedgerPurchases(ledger, `${hostname()}:${process.pid}`);
  const redisImport = new RedisPurchaseImport(redis, config.redis.keyPrefix, purchases, logger);
  const book = new PurchaseBook(purchases, logger);
  const outcomes = new TelegramOutcomes(outsideApi, i18n, formatter, config.payment?.minorDigits);
  const savedConnections = new RedisSavedConnections(redis, keys);
  const reminderStore = new RedisReminders(redis, keys);
  let refunds: RefundDesk | undefined;
  const teller = new OutcomeTeller(book, outcomes, logger, {
    provider,
    saved: savedConnections,
    onCharged: (purchase) => {
      if (purchase.fromReminder) metrics.reminderRenewals.inc();
    },
    onRefundDue: async (purchase) => refunds?.purchaseOwed(purchase),
    onUnknown: async (purchase) => refunds?.outcomeUnknown(purchase),
  });
  const reminders = new ReminderSender(
    reminderStore,
    provider,
    new TelegramReminders(outsideApi, i18n, formatter, renewButton),
    logger,
    { pollMs: 30_000, onResult: (result) => metrics.reminders.inc({ result }) },
  );
  const window = config.topup.verifyWindowMs;
  const topups = new TopupService(
    provider,
    book,
    teller,
    {
      checkoutTtlMs: config.provider.checkoutTtlSeconds * 1000,
      checkoutSafetyMarginMs: config.topup.checkoutSafetyMarginMs,
      verifyWindowMs: window,
      verifyFirstDelayMs: clamp(window / 60, 50, 1_000),
      verifyMaxDelayMs: clamp(window / 8, 100, 15_000),
      lockTtlMs: config.topup.lockTtlMs,
      recheckMaxMs: clamp(window / 4, 1_000, 60_000),
      paidRetryWindowMs: config.payment?.windowMs ?? 0,
    },
    logger,
  );
  const payment = config.payment;
  const paymentSystem: PaymentSystem | undefined =
    payment &&
    (payment.method === "telegram"
      ? new TelegramPayments(
          new TelegramInvoices(outsideApi, payment.providerToken, i18n, formatter),
        )
      : new KhaltiPayments(
          {
            baseUrl: payment.baseUrl,
            secretKey: payment.secretKey,
            timeoutMs: config.provider.timeoutMs,
          },
          new TelegramPaymentLinks(outsideApi, i18n, formatter),
          {
            returnUrl: new URL(KHALTI_RETURN_PATH, payment.publicUrl).toString(),
            websiteUrl: payment.publicUrl,
          },
        ));
  refunds =
    payment &&
    paymentSystem &&
    new RefundDesk(
      book,
      purchases,
      teller,
      new TelegramRefundChannel(
        outsideApi,
        i18n,
        formatter,
        subscribers,
        {
          adminUserIds: config.adminUserIds,
          supportChatIds: config.supportChatIds,
          minorDigits: payment.minorDigits,
        },
        logger,
      ),
      (purchaseId) => topups.lastLook(purchaseId),
      logger,
      // Khalti refunds through its API: a few tries, then a person (/refunds).
      paymentSystem.refund
        ? { system: paymentSystem, retryMs: payment.checkMs, maxAttempts: REFUND_TRIES }
        : undefined,
    );
  const payments =
    payment &&
    paymentSystem &&
    refunds &&
    new PaymentService(
      book,
      purchases,
      new FilePaymentJournal(config.dataDir, logger),
      topups,
      teller,
      paymentSystem,
      refunds,
      () => provider.state === "closed",
      {
        currency: payment.currency,
        minorDigits: payment.minorDigits,
        windowMs: payment.windowMs,
        lockTtlMs: config.topup.lockTtlMs,
        retryMs: 1_000,
        checkMs: payment.checkMs,
        ...(payment.method === "khalti" && { minimumMinor: KHALTI_MINIMUM_PAISA }),
      },
      logger,
    );
  const reconciler = new Reconciler(
    book,
    payments ?? topups,
    teller,
    {
      intervalMs: config.topup.reconcileIntervalMs,
      minDelayMs: 250,
      lockTtlMs: config.topup.lockTtlMs,
      isTransient: (error) =>
        ledgerUnreachable(error) || (connection?.isUnreachable(error) ?? false),
      onResult: (result) => metrics.reconciliations.inc({ result }),
    },
    logger,
  );

  const broadcasts = new RedisBroadcasts(redis, keys);
  const broadcastPorts = new TelegramBroadcastPorts(telegramApi(), i18n, formatter, logger);
  const sender = new BroadcastSender(
    broadcasts,
    subscribers,
    broadcastPorts,
    config.broadcast,
    logger,
  );
  const queue: BroadcastRunner = options.redis
    ? new InProcessBroadcasts(sender, logger)
    : new BroadcastQueue(
        config.redis,
        keys.queuePrefix,
        sender,
        config.broadcast.lockMs,
        async () => (await broadcasts.running()).length > 0,
        logger,
      );

  metrics.watch(
    () => connection?.healthy ?? true,
    () => ledger.healthy,
    () => provider.state,
    () => queue.depth(),
  );

  const idleSeconds = Math.ceil(config.sessionIdleMs / 1000);
  const staff = new StaffRoles({
    roles: config.roles,
    adminUserIds: config.adminUserIds,
    supportChatIds: config.supportChatIds,
    now: Date.now,
  });
  const deps: BotDeps = {
    config,
    logger,
    metrics,
    provider,
    topups,
    ...(payments && refunds && { payments, refunds }),
    purchases,
    reports: new LedgerReports(ledger, config.provider.timeZone),
    gate: new RedisUpdateGate(redis, keys, {
      lockMs: CHAT_LOCK_MS,
      sessionSeconds: SESSION_TTL_SECONDS,
      waitMs: CHAT_WAIT_MS,
    }),
    drafts: new RedisDrafts(redis, keys, idleSeconds),
    listings: new RedisListings(redis, keys, idleSeconds),
    savedConnections,
    reminders: reminderStore,
    wakeReminders: () => reminders.wake(),
    cancels: new RedisCancelMarks(redis, keys, idleSeconds),
    audit: new RedisAuditLog(redis, keys),
    staff,
    lookupRefs: new RedisLookupRefs(redis, keys),
    lookupLimit: new LookupLimit(
      new RedisLookupCounter(redis, keys),
      alerts,
      {
        limit: config.limits.lookups,
        windowMs: config.limits.lookupWindowMs,
        budgetPerHour: config.limits.lookupBudgetPerHour,
        isExempt: (userId) => staff.isListedStaff(userId),
      },
      logger,
    ),
    i18n,
    formatter,
    subscribers,
    broadcasts,
    enqueueBroadcast: (id) => queue.enqueue(id),
    previewBroadcast: (chatId, language, content) =>
      broadcastPorts.send(chatId, language, content, true),
    now: Date.now,
    isStoreFailure: (error) =>
      ledgerUnreachable(error) || (connection?.isUnreachable(error) ?? false),
  };
  const { bot, purchases: running, settled: updatesSettled } = createBot(deps, outcomes);
  const dailyReports =
    config.dailyReportAt &&
    new DailyReports(
      new RedisDailyReportMarks(redis, keys),
      (admin, period) => sendDailyReport(outsideApi, admin, period, deps),
      { at: config.dailyReportAt, zone: config.provider.timeZone, admins: config.adminUserIds },
      logger,
    );
  const webhook = config.webhook;
  const poller = webhook
    ? undefined
    : new Poller(
        bot,
        new RedisPollingTurn(redis, keys.pollingTurn, config.pollingLeaseMs),
        {
          leaseMs: config.pollingLeaseMs,
          concurrency: config.pollingConcurrency,
          pollTimeoutSeconds: config.telegram.pollTimeoutSeconds,
          allowedUpdates: ALLOWED_UPDATES,
        },
        logger,
      );
  let started = false;
  const ready = () => started && (connection?.healthy ?? true) && ledger.healthy;
  const onRejected = (reason: WebhookRejection) => metrics.webhookRejections.inc({ reason });
  const http =
    config.http &&
    new HttpServer({
      ...config.http,
      webhook: webhook && {
        path: new URL(webhook.url).pathname,
        secret: webhook.secret,
        handle: async (update) => {
          try {
            await bot.handleUpdate(update as Parameters<typeof bot.handleUpdate>[0]);
          } catch (error) {
            // Kept nowhere: a 500, and Telegram delivers it again (the buyer is told then).
            if (!(error instanceof BotError) || error.error instanceof ConfirmationNotKept) {
              throw error;
            }
            // The error boundary, as the runner calls it for polled updates.
            await bot.errorHandler(error);
          }
        },
        answerWithinMs: WEBHOOK_ANSWER_MS,
        answersOnceHandled: isPaymentConfirmation,
      },
      ready,
      pages:
        payments && payment?.method === "khalti"
          ? [
              khaltiReturnPage(
                KHALTI_RETURN_PATH,
                purchases,
                payments,
                i18n,
                () => bot.botInfo.username,
                config.returnPage.lookupIntervalMs,
              ),
            ]
          : [],
      pagesPerClientPerMinute: config.returnPage.perClientPerMinute,
      // On the public port only behind the token.
      metrics: config.http.metricsToken
        ? {
            contentType: metrics.contentType,
            render: () => metrics.render(),
            token: config.http.metricsToken,
          }
        : undefined,
      onRejected,
      log: logger,
    });
  const metricsHttp =
    config.metricsHttp &&
    new HttpServer({ ...config.metricsHttp, ready, metrics, onRejected, log: logger });

  /** Warns (or refuses to start) when Redis could lose or evict reminders and sessions. */
  async function checkRedis(): Promise<void> {
    const check = await checkDurability(redis);
    if (check.kind === "durable") return;
    if (check.kind === "unknown") {
      logger.warn({ reason: check.reason }, "could not check Redis durability (CONFIG refused)");
      return;
    }
    if (config.redis.requireDurable) {
      throw new Error(`Redis is not durable: ${check.problems.join("; ")}`);
    }
    logger.warn(
      { problems: check.problems },
      "Redis could lose reminders and sessions: use AOF (appendfsync everysec) and maxmemory-policy noeviction",
    );
  }

  /** Everything under way finishes; what still waits for the provider is handed over in time. */
  async function drain(deadline: number): Promise<void> {
    await poller?.stop();
    const handOverAt = deadline - HAND_OVER_BEFORE_END_MS;
    const handOverTime = () =>
      sleep(Math.max(0, handOverAt - Date.now()), undefined, { ref: false });
    // The updates under way first (a Confirm among them starts the purchase waited for next),
    // but an update waiting for its chat's turn or the provider never holds up the hand-over.
    await Promise.race([Promise.all([http?.drain(), updatesSettled()]), handOverTime()]);
    const settling = Promise.all([
      running.drain(),
      payments?.drain(),
      refunds?.stop(),
      reconciler.stop(),
      reminders.stop(),
      dailyReports?.stop(),
      queue.close(),
    ]);
    await Promise.race([settling, handOverTime()]);
    topups.windDown();
    await settling;
    payments?.stop();
    await book.drain();
  }

  let importRetry: NodeJS.Timeout | undefined;
  /** The previous release's purchases, out of Redis; those still leased there are tried again. */
  async function importFromRedis(): Promise<void> {
    const left = await redisImport.run().catch((error: unknown) => {
      logger.warn({ reason: String(error) }, "could not take purchases over from Redis yet");
      return 1;
    });
    if (left === 0) return;
    importRetry = setTimeout(() => void importFromRedis(), config.topup.reconcileIntervalMs);
    importRetry.unref();
  }

  let stopping: Promise<void> | undefined;

  return {
    metrics,
    async start() {
      await Promise.all([http?.listen(), metricsHttp?.listen()]);
      // Redis and Telegram at the same time; the command menus need not hold up the first update.
      await Promise.all([connection?.open().then(checkRedis), ledger.open(), bot.init()]);
      await importFromRedis();
      await payments?.resume();
      await refunds
        ?.resume()
        .catch((error: unknown) =>
          logger.warn({ err: error }, "could not take up unfinished refunds yet"),
        );
      registerCommands(bot.api, i18n, config.adminUserIds).catch((error: unknown) =>
        logger.warn({ err: error }, "could not set the command menus"),
      );
      if (webhook) {
        await bot.api.setWebhook(webhook.url, {
          secret_token: webhook.secret,
          allowed_updates: [...ALLOWED_UPDATES],
        });
      } else poller?.start();
      reconciler.start();
      reminders.start();
      dailyReports?.start();
      queue.start();
      started = true;
      const mode = webhook ? "webhook" : "long polling";
      // The heap limit tells whether the production memory settings apply (bin/start).
      const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
      const facts = {
        username: bot.botInfo.username,
        mode,
        port: http?.port,
        metricsPort: metricsHttp?.port,
        pid: process.pid,
        heapLimitMb,
      };
      logger.info(facts, "bot started");
    },
    stop() {
      stopping ??= (async () => {
        const deadline = Date.now() + config.shutdownGraceMs;
        http?.stopTakingWork();
        metricsHttp?.stopTakingWork();
        await drain(deadline);
        await client.close();
        clearTimeout(importRetry);
        await (connection ? connection.close() : redis.quit());
        await ledger.close();
        await Promise.all([http?.close(), metricsHttp?.close()]);
        logger.info({}, "bot stopped");
      })();
      return stopping;
    },
  };
}
