// The composition root, as a table of contents: each part is built from the configuration
// and the parts before it by a function of its own (src/wiring/, src/bot/ports.ts), and
// src/lifecycle.ts starts, drains and stops them in their order.

import type { Redis } from "ioredis";
import { telegramFetch } from "./adapters/http-client.js";
import type { LedgerTarget } from "./adapters/ledger/connection.js";
import type { Logger } from "./adapters/logger.js";
import { Metrics } from "./adapters/metrics.js";
import { createTelegramPorts } from "./bot/ports.js";
import type { Config } from "./config.js";
import { createLifecycle, type Lifecycle, Readiness } from "./lifecycle.js";
import { createTelegramBot } from "./wiring/bot.js";
import { createHttp } from "./wiring/http.js";
import { createPayments } from "./wiring/payments.js";
import { createProvider } from "./wiring/provider.js";
import { createPurchases } from "./wiring/purchases.js";
import { createReconciliation } from "./wiring/reconciliation.js";
import { createStores } from "./wiring/stores.js";
import { createWorkers } from "./wiring/workers.js";

export interface App extends Lifecycle {
  readonly metrics: Metrics;
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
  const base = { config, logger, metrics };

  // Redis and the ledger: every store, and the one test of "a store is away".
  const stores = createStores({ ...base, given: options });
  // What the bot says outside updates: outcomes, reminders, broadcasts, operators' alerts.
  // The Bot API through undici, as every other outbound call.
  const telegram = createTelegramPorts(config, stores.subscribers, logger, {
    apiRoot: config.telegramApiRoot,
    fetch: telegramFetch(),
  });
  // The provider's API, behind its health (alerts, top-ups paused while it refuses our token).
  const provider = createProvider({ ...base, stores, alerts: telegram.alerts });
  const core = { ...base, stores, telegram, provider: provider.health };

  // The domain: purchases, then paying for them (undefined with PAYMENT_MODE=none), then what
  // runs beside the updates (reconciliation, reminders, broadcasts).
  const purchases = createPurchases(core);
  const payments = createPayments({ ...core, purchases });
  const workers = createWorkers({ ...core, purchases, payments });
  // The daily audit of the ledger against the payment systems and the provider (/reconcile).
  const reconciliation = createReconciliation({ ...core, payments });
  metrics.watch(
    stores.redisHealthy,
    () => stores.ledger.healthy,
    () => provider.health.state,
    () => workers.queue.depth(),
  );

  // The bot, and the HTTP listeners: the webhook (without it, the bot polls), the Khalti
  // return page, health and metrics.
  const bot = createTelegramBot({
    ...core,
    purchases,
    payments,
    workers,
    reconciliations: reconciliation.runs,
  });
  const readiness = new Readiness(stores.healthy);
  const http = createHttp({
    ...base,
    stores,
    payments,
    bot: bot.bot,
    deps: bot.deps,
    i18n: telegram.i18n,
    formatter: telegram.formatter,
    ready: readiness.ready,
  });

  // Start, drain and stop.
  const lifecycle = createLifecycle({
    ...base,
    stores,
    client: provider.client,
    purchases,
    payments,
    workers,
    reconciliation,
    bot,
    http,
    readiness,
  });
  return { metrics, start: lifecycle.start, stop: lifecycle.stop };
}
