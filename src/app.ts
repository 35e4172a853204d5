// The composition root: builds every part from the configuration and starts and stops them.
import type { Server } from "node:http";
import { type RunnerHandle, run } from "@grammyjs/runner";
import { Api } from "grammy";
import { Redis } from "ioredis";
import { createBot } from "./bot/bot.js";
import { registerCommands } from "./bot/commands.js";
import type { BotDeps } from "./bot/deps.js";
import { TelegramBroadcastPorts } from "./bot/features/broadcast/delivery.js";
import { ValueFormatter } from "./bot/format/values.js";
import { createI18n } from "./bot/i18n.js";
import { RedisSessionStorage } from "./bot/session-storage.js";
import { BroadcastQueue, type BroadcastRunner, InProcessBroadcasts } from "./broadcast-queue.js";
import type { Config } from "./config/config.js";
import { BroadcastSender, BroadcastStore } from "./domain/broadcast.js";
import { Journal } from "./domain/journal.js";
import { Reconciler } from "./domain/reconciler.js";
import { redisKeys } from "./domain/redis-keys.js";
import { SubscriberRegistry } from "./domain/subscribers.js";
import { TopupService } from "./domain/topup.js";
import type { Logger } from "./logger.js";
import { Metrics } from "./metrics.js";
import { ProviderClient } from "./provider/client.js";

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
  const journal = new Journal(redis, keys);
  const window = config.topup.verifyWindowMs;
  const topups = new TopupService(
    provider,
    journal,
    redis,
    keys,
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
  const subscribers = new SubscriberRegistry(redis, keys);
  const broadcasts = new BroadcastStore(redis, keys);
  const formatters = new Map<string, ValueFormatter>();
  const formatter = (locale: string) => {
    let found = formatters.get(locale);
    if (!found) {
      found = new ValueFormatter(locale, config.provider.timeZone, config.currency);
      formatters.set(locale, found);
    }
    return found;
  };
  const broadcastPorts = new TelegramBroadcastPorts(
    new Api(config.botToken, { apiRoot: config.telegramApiRoot }),
    i18n,
    formatter,
    logger,
  );
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
    redis,
    keys,
    sessions: new RedisSessionStorage(redis, keys, SESSION_TTL_SECONDS),
    i18n,
    formatter,
    subscribers,
    broadcasts,
    enqueueBroadcast: (id) => queue.enqueue(id),
    now: Date.now,
  };
  const telegram = {
    token: config.botToken,
    apiRoot: config.telegramApiRoot,
    retryAttempts: config.telegram.retryAttempts,
  };
  const { bot, purchases, messenger } = createBot(telegram, deps, (chatId, language, content) =>
    broadcastPorts.send(chatId, language, content),
  );
  const reconciler = new Reconciler(
    journal,
    topups,
    (entry) => messenger.deliverEntry(entry),
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
