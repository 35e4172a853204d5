// The composition root: builds every part from the configuration, wires the adapters into
// the domain and the bot, and starts and stops them.
import type { Server } from "node:http";
import { type RunnerHandle, run } from "@grammyjs/runner";
import { Api } from "grammy";
import { Redis } from "ioredis";
import type { Logger } from "./adapters/logger.js";
import { Metrics } from "./adapters/metrics.js";
import { ProviderClient } from "./adapters/provider/client.js";
import {
  BroadcastQueue,
  type BroadcastRunner,
  InProcessBroadcasts,
} from "./adapters/queue/broadcasts.js";
import { RedisBroadcasts } from "./adapters/redis/broadcasts.js";
import { RedisDrafts } from "./adapters/redis/drafts.js";
import { RedisJournal } from "./adapters/redis/journal.js";
import { redisKeys } from "./adapters/redis/keys.js";
import { RedisLookupRefs } from "./adapters/redis/lookup-refs.js";
import { RedisPurchaseGuards } from "./adapters/redis/purchase-guards.js";
import { RedisSessionStorage } from "./adapters/redis/sessions.js";
import { RedisSubscribers } from "./adapters/redis/subscribers.js";
import { RedisAuditLog } from "./adapters/redis/support-audit.js";
import { RedisUpdateLog } from "./adapters/redis/updates.js";
import { createBot } from "./bot/bot.js";
import { registerCommands } from "./bot/commands.js";
import type { SessionData } from "./bot/context.js";
import type { BotDeps } from "./bot/deps.js";
import { TelegramBroadcastPorts } from "./bot/features/broadcast/delivery.js";
import { TelegramOutcomes } from "./bot/features/topup/outcomes.js";
import { configureApi } from "./bot/shared/api.js";
import { createI18n } from "./bot/shared/i18n.js";
import { ValueFormatter } from "./bot/shared/values.js";
import type { Config } from "./config.js";
import { BroadcastSender } from "./domain/broadcast.js";
import { OutcomeTeller } from "./domain/outcomes.js";
import { Reconciler } from "./domain/reconciler.js";
import { TopupService } from "./domain/topup.js";

const SESSION_TTL_SECONDS = 90 * 86_400;
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
  const redis = options.redis ?? new Redis(config.redisUrl, { maxRetriesPerRequest: 3 });
  const keys = redisKeys(config.redisKeyPrefix);
  const provider = new ProviderClient({ ...config.provider, logger });
  const journal = new RedisJournal(redis, keys);
  const window = config.topup.verifyWindowMs;
  const topups = new TopupService(
    provider,
    journal,
    new RedisPurchaseGuards(redis, keys),
    {
      checkoutTtlMs: config.provider.checkoutTtlSeconds * 1000,
      checkoutSafetyMarginMs: config.topup.checkoutSafetyMarginMs,
      verifyWindowMs: window,
      verifyFirstDelayMs: clamp(window / 60, 50, 1_000),
      verifyMaxDelayMs: clamp(window / 8, 100, 15_000),
      lockTtlMs: config.topup.lockTtlMs,
    },
    logger,
  );
  const i18n = createI18n();
  const metrics = new Metrics();
  const subscribers = new RedisSubscribers(redis, keys);
  const broadcasts = new RedisBroadcasts(redis, keys);
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
  // Outside updates: outcomes with the bot's retries; broadcasts pace themselves.
  const outcomes = new TelegramOutcomes(
    telegramApi(config.telegram.retryAttempts),
    i18n,
    formatter,
  );
  const teller = new OutcomeTeller(journal, outcomes, logger);
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
        config.redisUrl,
        keys.queuePrefix,
        sender,
        config.broadcast.lockMs,
        logger,
      );
  const deps: BotDeps = {
    config,
    logger,
    metrics,
    provider,
    topups,
    journal,
    teller,
    sessions: new RedisSessionStorage<SessionData>(redis, keys, SESSION_TTL_SECONDS),
    updates: new RedisUpdateLog(redis, keys),
    drafts: new RedisDrafts(redis, keys, Math.ceil(config.sessionIdleMs / 1000)),
    audit: new RedisAuditLog(redis, keys),
    lookupRefs: new RedisLookupRefs(redis, keys),
    i18n,
    formatter,
    subscribers,
    broadcasts,
    enqueueBroadcast: (id) => queue.enqueue(id),
    previewBroadcast: (chatId, language, content) => broadcastPorts.send(chatId, language, content),
    now: Date.now,
  };
  const { bot, purchases } = createBot(deps, outcomes);
  const reconciler = new Reconciler(
    journal,
    topups,
    teller,
    { intervalMs: config.topup.reconcileIntervalMs, staleAfterMs: config.topup.reconcileAfterMs },
    logger,
  );
  let runner: RunnerHandle | undefined;
  let metricsServer: Server | undefined;

  return {
    metrics,
    async start() {
      if (config.metrics.port !== undefined) {
        metricsServer = await metrics.serve(config.metrics.port, config.metrics.host);
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
      await purchases.drain();
      await queue.close();
      await reconciler.stop();
      await provider.close();
      await redis.quit();
      metricsServer?.close();
      logger.info("bot stopped");
    },
  };
}
