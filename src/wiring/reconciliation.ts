// The daily reconciliation (issue 32): the ledger's days and runs, each payment system's own
// record (PaymentSystem.audit) and the provider's txn-status, paced; the reports to the admins;
// RECONCILE_AT's schedule, which also takes over runs an instance left.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { LedgerDays } from "../adapters/ledger/reconciliation-days.js";
import { ReconciliationStore } from "../adapters/ledger/reconciliation-store.js";
import type { Logger } from "../adapters/logger.js";
import { ProviderClient } from "../adapters/provider/client.js";
import { ReconciliationSchedule } from "../bot/features/reconcile/daily.js";
import { sendReconciliation } from "../bot/features/reconcile/delivery.js";
import type { TelegramPorts } from "../bot/ports.js";
import type { Config } from "../config.js";
import { PacedAsker } from "../domain/paced-asking.js";
import { PAYMENT_METHODS } from "../domain/purchase.js";
import { type FindingSettler, Reconciliations } from "../domain/reconciliation-runs.js";
import { daySources, type PaymentAudit } from "../domain/reconciliation-sources.js";
import type { Payments } from "./payments.js";
import type { Stores } from "./stores.js";

/** Tries of each call to an outside party before it is reported as not asked. */
const ASK_ATTEMPTS = 3;
/** Connections to the provider for reconciliations: calls are paced, a few at most at once. */
const PROVIDER_CONNECTIONS = 2;

export interface Reconciliation {
  runs: Reconciliations;
  schedule: ReconciliationSchedule;
  /** The reconciliation's own provider client, closed on stop. */
  client: ProviderClient;
}

export function createReconciliation(parts: {
  config: Config;
  logger: Logger;
  stores: Stores;
  payments: Payments | undefined;
  telegram: TelegramPorts;
}): Reconciliation {
  const { config, logger, stores, telegram } = parts;
  const settings = config.reconciliation;
  const minorDigits = config.payment?.minorDigits ?? 2;
  const zone = config.provider.timeZone;
  // The provider itself, not its health (a reconciliation never pauses or alerts top-ups), and
  // without the client's own retries: the pacer's tries are all the calls it makes.
  const client = new ProviderClient({
    ...config.provider,
    readRetries: 0,
    maxConnections: PROVIDER_CONNECTIONS,
    logger,
  });
  const audits = new Map<string, PaymentAudit>();
  for (const [method, system] of parts.payments?.systems ?? []) {
    if (system.audit) audits.set(method, system.audit.bind(system));
  }
  const asker = new PacedAsker({
    ratePerSecond: settings.ratePerSecond,
    attempts: ASK_ATTEMPTS,
    sleep: (ms) => sleep(ms),
    now: Date.now,
  });
  // A payment found paid, neither topped up nor refunded, is settled by the payment path.
  const service = parts.payments?.service;
  const settle: FindingSettler | undefined = service
    ? ({ purchaseId, system, handle }) => {
        const method = PAYMENT_METHODS.find((known) => known === system);
        return method ? service.settleOffer({ purchaseId, method, handle }) : Promise.resolve(null);
      }
    : undefined;
  const runs = new Reconciliations(
    new ReconciliationStore(stores.ledger),
    daySources(
      new LedgerDays(stores.ledger, { timeZone: zone, minorDigits }),
      audits,
      client,
      asker,
      minorDigits,
      logger,
    ),
    (first, last) => stores.providerBalance.drifts(first, last, zone),
    (report) =>
      sendReconciliation(telegram.api, report, {
        config,
        i18n: telegram.i18n,
        formatter: telegram.formatter,
        subscribers: stores.subscribers,
        logger,
      }),
    // Unique per app, also when several run in one process (tests, the playground).
    {
      holder: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
      leaseMs: settings.leaseMs,
    },
    logger,
    settle,
  );
  const schedule = new ReconciliationSchedule(
    runs,
    { at: settings.at, zone, lookEveryMs: settings.leaseMs, isTransient: stores.isUnreachable },
    logger,
  );
  return { runs, schedule, client };
}
