// The composition root: builds every part from the configuration, wires the adapters into
// the domain and the bot, and starts and stops them.
import type { Server } from "node:http";
import { type RunnerHandle, run } from "@grammyjs/runner";
import { Api } from "grammy";
import type { Redis } from "ioredis";
import type { Logger } from "./adapters/logger.js";
import { Metrics } from "./adapters/metrics.js";
import { ProviderClient } from "./adapters/provider/client.js";
import {
  BroadcastQueue,
  type BroadcastRunner,
  InProcessBroadcasts,
} from "./adapters/queue/broadcasts.js";
import { RedisAlertLedger } from "./adapters/redis/alert-ledger.js";
import { RedisBroadcasts } from "./adapters/redis/broadcasts.js";
import { RedisBuyerGuard } from "./adapters/redis/buyer-guard.js";
import { RedisCancelMarks } from "./adapters/redis/cancels.js";
import { RedisConnection } from "./adapters/redis/connection.js";
import { RedisDrafts } from "./adapters/redis/drafts.js";
import { checkDurability } from "./adapters/redis/durability.js";
import { redisKeys } from "./adapters/redis/keys.js";
import { RedisLookupRefs } from "./adapters/redis/lookup-refs.js";
import { RedisPurchases } from "./adapters/redis/purchases.js";
import { RedisSubscribers } from "./adapters/redis/subscribers.js";
import { RedisAuditLog } from "./adapters/redis/support-audit.js";
import { RedisUpdateGate } from "./adapters/redis/update-gate.js";
import { createBot } from "./bot/bot.js";
import { registerCommands } from "./bot/commands.js";
import type { BotDeps } from "./bot/deps.js";
import { TelegramAlerts } from "./bot/features/alerts/index.js";
import { TelegramBroadcastPorts } from "./bot/features/broadcast/delivery.js";
import { TelegramOutcomes } from "./bot/features/topup/outcomes.js";
import { configureApi } from "./bot/shared/api.js";
import { createI18n } from "./bot/shared/i18n.js";
import { ValueFormatter } from "./bot/shared/values.js";
import type { Config } from "./config.js";
import { BroadcastSender } from "./domain/broadcast.js";
import { OutcomeTeller } from "./domain/outcomes.js";
import { ProviderHealth } from "./domain/provider-health.js";
import { PurchaseBook } from "./domain/purchase-book.js";
import { Reconciler } from "./domain/reconciler.js";
import { TopupService } from "./domain/topup.js";

const SESSION_TTL_SECONDS = 90 * 86_400;
/** A chat's turn lapses this long after its instance died; an update waits at most a minute. */
const CHAT_LOCK_MS = 10_000;
const CHAT_WAIT_MS = 60_000;
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export interface App {
  readonly metrics: Metrics;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface AppOptions {
  /**
   * A Redis stand-in (the offline playground's in-process storage). Without it the bot connects
   * to REDIS_URL, and broadcasts run on BullMQ; with it they run in this process.
   */
  redis?: Redis;
}

export function createApp(config: Config, logger: Logger, options: AppOptions = {}): App {
  const connection = options.redis
    ? undefined
    : new RedisConnection(config.redis.url, {
        commandTimeoutMs: config.redis.commandTimeoutMs,
        log: logger,
      });
  const redis = options.redis ?? (connection as RedisConnection).redis;
  const keys = redisKeys(config.redis.keyPrefix);
  const i18n = createI18n();
  const metrics = new Metrics();
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
  metrics.watch(
    () => connection?.healthy ?? true,
    () => provider.state,
  );

  const purchases = new RedisPurchases(redis, keys);
  const book = new PurchaseBook(purchases, logger);
  const outcomes = new TelegramOutcomes(outsideApi, i18n, formatter);
  const teller = new OutcomeTeller(book, outcomes, logger);
  const window = config.topup.verifyWindowMs;
  const topups = new TopupService(
    provider,
    book,
    new RedisBuyerGuard(redis, keys),
    teller,
    {
      checkoutTtlMs: config.provider.checkoutTtlSeconds * 1000,
      checkoutSafetyMarginMs: config.topup.checkoutSafetyMarginMs,
      verifyWindowMs: window,
      verifyFirstDelayMs: clamp(window / 60, 50, 1_000),
      verifyMaxDelayMs: clamp(window / 8, 100, 15_000),
      lockTtlMs: config.topup.lockTtlMs,
      recheckMaxMs: clamp(window / 4, 1_000, 60_000),
    },
    logger,
  );
  const reconciler = new Reconciler(
    book,
    topups,
    teller,
    {
      intervalMs: config.topup.reconcileIntervalMs,
      minDelayMs: 250,
      lockTtlMs: config.topup.lockTtlMs,
      isTransient: (error) => connection?.isUnreachable(error) ?? false,
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
        config.redis.url,
        keys.queuePrefix,
        sender,
        config.broadcast.lockMs,
        logger,
      );

  const idleSeconds = Math.ceil(config.sessionIdleMs / 1000);
  const deps: BotDeps = {
    config,
    logger,
    metrics,
    provider,
    topups,
    purchases,
    gate: new RedisUpdateGate(redis, keys, {
      lockMs: CHAT_LOCK_MS,
      sessionSeconds: SESSION_TTL_SECONDS,
      waitMs: CHAT_WAIT_MS,
    }),
    drafts: new RedisDrafts(redis, keys, idleSeconds),
    cancels: new RedisCancelMarks(redis, keys, idleSeconds),
    audit: new RedisAuditLog(redis, keys),
    lookupRefs: new RedisLookupRefs(redis, keys),
    i18n,
    formatter,
    subscribers,
    broadcasts,
    enqueueBroadcast: (id) => queue.enqueue(id),
    previewBroadcast: (chatId, language, content) => broadcastPorts.send(chatId, language, content),
    now: Date.now,
    isStoreFailure: (error) => connection?.isUnreachable(error) ?? false,
  };
  const { bot, purchases: running } = createBot(deps, outcomes);
  let runner: RunnerHandle | undefined;
  let metricsServer: Server | undefined;

  /** Warns (or refuses to start) when Redis could lose or evict purchase records. */
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
      "Redis could lose purchase records: use AOF (appendfsync everysec) and maxmemory-policy noeviction",
    );
  }

  return {
    metrics,
    async start() {
      if (config.metrics.port !== undefined) {
        metricsServer = await metrics.serve(config.metrics.port, config.metrics.host);
      }
      if (connection) {
        await connection.open();
        await checkRedis();
      }
      await bot.init();
      await registerCommands(bot.api, i18n);
      runner = run(bot, {
        runner: { fetch: { timeout: config.telegram.pollTimeoutSeconds } },
      });
      reconciler.start();
      queue.start();
      logger.info({ username: bot.botInfo.username }, "bot started (long polling)");
    },
    async stop() {
      if (runner?.isRunning()) await runner.stop();
      await running.drain();
      await queue.close();
      await reconciler.stop();
      await book.drain();
      await client.close();
      await (connection ? connection.close() : redis.quit());
      metricsServer?.close();
      logger.info({}, "bot stopped");
    },
  };
}
