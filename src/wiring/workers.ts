// What works beside the updates, on timers and queues: reconciliation (what a crash or an
// unreachable provider left open), the expiry reminders, the broadcasts' sending.
import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import {
  BroadcastQueue,
  type BroadcastRunner,
  InProcessBroadcasts,
} from "../adapters/queue/broadcasts.js";
import type { TelegramPorts } from "../bot/ports.js";
import type { Config } from "../config.js";
import { BroadcastSender } from "../domain/broadcast.js";
import type { ProviderHealth } from "../domain/provider-health.js";
import { Reconciler } from "../domain/reconciler.js";
import { ReminderSender } from "../domain/reminders.js";
import type { Payments } from "./payments.js";
import type { Purchases } from "./purchases.js";
import type { Stores } from "./stores.js";

/** Reconciliation's shortest pause between two passes, however soon the next claim is due. */
const RECONCILE_MIN_DELAY_MS = 250;
/** The reminder sender looks at its store at least this often, even when nobody wakes it. */
const REMINDER_POLL_MS = 30_000;

export interface Workers {
  reconciler: Reconciler;
  reminders: ReminderSender;
  /** Broadcasts on BullMQ, or in this process with the playground's Redis stand-in. */
  queue: BroadcastRunner;
}

export function createWorkers(parts: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  stores: Stores;
  provider: ProviderHealth;
  purchases: Purchases;
  payments: Payments | undefined;
  telegram: TelegramPorts;
}): Workers {
  const { config, logger, metrics, stores, purchases } = parts;
  const reconciler = new Reconciler(
    purchases.book,
    parts.payments?.service ?? purchases.topups,
    purchases.teller,
    {
      intervalMs: config.topup.reconcileIntervalMs,
      minDelayMs: RECONCILE_MIN_DELAY_MS,
      lockTtlMs: config.topup.lockTtlMs,
      isTransient: stores.isUnreachable,
      onResult: (result) => metrics.reconciliations.inc({ result }),
    },
    logger,
  );
  const reminders = new ReminderSender(
    stores.reminders,
    parts.provider,
    parts.telegram.reminders,
    logger,
    { pollMs: REMINDER_POLL_MS, onResult: (result) => metrics.reminders.inc({ result }) },
  );
  const sender = new BroadcastSender(
    stores.broadcasts,
    stores.subscribers,
    parts.telegram.broadcasts,
    config.broadcast,
    logger,
  );
  const queue: BroadcastRunner = stores.inProcess
    ? new InProcessBroadcasts(sender, logger)
    : new BroadcastQueue(
        config.redis,
        stores.keys.queuePrefix,
        sender,
        config.broadcast.lockMs,
        async () => (await stores.broadcasts.running()).length > 0,
        logger,
      );
  return { reconciler, reminders, queue };
}
