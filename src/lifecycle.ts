// Start, drain and stop, in their order. Start: the listeners, then Redis, the ledger and
// Telegram side by side, then what a stopped process left (journal, refunds), then updates and
// the workers. Stop: no new work, the work under way finished (what still waits for the
// provider handed over before the grace ends), then the connections closed.
import { setTimeout as sleep } from "node:timers/promises";
import { getHeapStatistics } from "node:v8";
import type { Logger } from "./adapters/logger.js";
import type { ProviderClient } from "./adapters/provider/client.js";
import { ALLOWED_UPDATES } from "./bot/bot.js";
import type { Config } from "./config.js";
import type { TelegramBot } from "./wiring/bot.js";
import type { HttpServers } from "./wiring/http.js";
import type { Payments } from "./wiring/payments.js";
import type { Purchases } from "./wiring/purchases.js";
import type { Reconciliation } from "./wiring/reconciliation.js";
import type { Stores } from "./wiring/stores.js";
import type { Workers } from "./wiring/workers.js";

/** Shutting down, purchases still waiting for an answer are handed over this long before the grace ends. */
const HAND_OVER_BEFORE_END_MS = 5_000;

export interface Lifecycle {
  start(): Promise<void>;
  /**
   * Graceful: stops taking work, finishes the updates and purchases under way (handing over
   * what is still unknown before the grace ends), closes queues and Redis. Idempotent.
   */
  stop(): Promise<void>;
}

/** Whether this instance should get traffic (/readyz): started, and its stores answer. */
export class Readiness {
  private started = false;

  constructor(private readonly storesAnswer: () => boolean) {}

  readonly ready = (): boolean => this.started && this.storesAnswer();

  markStarted(): void {
    this.started = true;
  }
}

export function createLifecycle(parts: {
  config: Config;
  logger: Logger;
  stores: Stores;
  client: ProviderClient;
  purchases: Purchases;
  payments: Payments | undefined;
  workers: Workers;
  reconciliation: Reconciliation;
  bot: TelegramBot;
  http: HttpServers;
  readiness: Readiness;
}): Lifecycle {
  const { config, logger, stores, purchases, payments, workers, readiness } = parts;
  const { bot, running, settled, poller, dailyReports } = parts.bot;
  const { http, metricsHttp } = parts.http;
  const webhook = config.webhook;

  /** Everything under way finishes; what still waits for the provider is handed over in time. */
  async function drain(deadline: number): Promise<void> {
    // No next batch is asked for: a confirmation kept nowhere stays with Telegram.
    await poller?.stop();
    parts.bot.stopHolding();
    const handOverAt = deadline - HAND_OVER_BEFORE_END_MS;
    const handOverTime = () =>
      sleep(Math.max(0, handOverAt - Date.now()), undefined, { ref: false });
    // The updates under way first (a Confirm among them starts the purchase waited for next),
    // but an update waiting for its chat's turn or the provider never holds up the hand-over.
    await Promise.race([Promise.all([http?.drain(), settled()]), handOverTime()]);
    const settling = Promise.all([
      running.drain(),
      payments?.service.drain(),
      payments?.refunds.stop(),
      payments?.watch?.stop(),
      workers.reconciler.stop(),
      workers.reminders.stop(),
      dailyReports?.stop(),
      parts.reconciliation.schedule.stop(),
      workers.queue.close(),
    ]);
    await Promise.race([settling, handOverTime()]);
    purchases.topups.windDown();
    await settling;
    payments?.service.stop();
    payments?.close();
    await purchases.book.drain();
  }

  let stopping: Promise<void> | undefined;

  return {
    async start() {
      // Before any confirmation can come (a webhook set by an earlier run delivers at once): the
      // journal's folder is this process's, or the start stops here.
      await payments?.journal.open();
      await Promise.all([http?.listen(), metricsHttp?.listen()]);
      // Redis and Telegram at the same time; the command menus need not hold up the first update.
      await Promise.all([stores.open(), bot.init()]);
      await stores.importFromRedis();
      await payments?.service.resume();
      await payments?.refunds
        .resume()
        .catch((error: unknown) =>
          logger.warn({ err: error }, "could not take up unfinished refunds yet"),
        );
      payments?.watch?.start();
      if (webhook) {
        await bot.api.setWebhook(webhook.url, {
          secret_token: webhook.secret,
          allowed_updates: [...ALLOWED_UPDATES],
        });
      } else poller?.start();
      // After the first poll is asked for: the menus' texts are the first the bot reads, and
      // reading the locales is off the start's critical path. An admin's menu Telegram refuses
      // now (never wrote to the bot) comes with their first message.
      setImmediate(() => {
        parts.bot.menus
          .register()
          .catch((error: unknown) =>
            logger.warn({ err: error }, "could not set the command menus"),
          );
      });
      workers.reconciler.start();
      workers.reminders.start();
      dailyReports?.start();
      parts.reconciliation.schedule.start();
      workers.queue.start();
      readiness.markStarted();
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
        await Promise.all([parts.client.close(), parts.reconciliation.client.close()]);
        await stores.close();
        await Promise.all([http?.close(), metricsHttp?.close()]);
        await payments?.journal.close();
        logger.info({}, "bot stopped");
      })();
      return stopping;
    },
  };
}
