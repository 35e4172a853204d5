// A purchase's way through the domain: the book every write of it goes through, the teller
// that tells its buyer how it ended, and the top-up service that runs it.
import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import type { TelegramPorts } from "../bot/ports.js";
import type { Config } from "../config.js";
import { OutcomeTeller } from "../domain/outcomes.js";
import { BalanceGuard, BalanceWatch } from "../domain/provider-balance.js";
import type { ProviderHealth } from "../domain/provider-health.js";
import { PurchaseBook } from "../domain/purchase-book.js";
import { TopupService } from "../domain/topup.js";
import type { Stores } from "./stores.js";

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export interface Purchases {
  book: PurchaseBook;
  teller: OutcomeTeller;
  topups: TopupService;
  /** The low provider balance alert (BALANCE_ALERT_BELOW); undefined when off. */
  balanceWatch: BalanceWatch | undefined;
  /** Refuses purchases the provider balance cannot pay (BALANCE_STOP_BELOW); undefined when off. */
  balanceGuard: BalanceGuard | undefined;
}

export function createPurchases(parts: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  stores: Stores;
  provider: ProviderHealth;
  telegram: TelegramPorts;
}): Purchases {
  const { config, logger, provider } = parts;
  const book = new PurchaseBook(parts.stores.purchases, logger);
  const teller = new OutcomeTeller(book, parts.telegram.outcomes, logger, {
    provider,
    saved: parts.stores.savedConnections,
  });
  const below = config.balanceAlertBelowMinor;
  const balanceWatch =
    below === undefined
      ? undefined
      : new BalanceWatch(
          parts.stores.providerBalance,
          parts.stores.lowBalance,
          parts.telegram.alerts,
          { belowMinor: below },
          logger,
        );
  const stop = config.balanceStopBelowMinor;
  const balanceGuard =
    stop === undefined
      ? undefined
      : new BalanceGuard(
          parts.stores.providerBalance,
          parts.stores.balanceStop,
          parts.telegram.alerts,
          { belowMinor: stop, minorDigits: config.payment?.minorDigits ?? 2 },
          logger,
        );
  teller.whenTold("charged", async (purchase) => {
    if (purchase.fromReminder) parts.metrics.reminderRenewals.inc();
    await balanceWatch?.check();
  });
  // txn-status is asked soon after an unknown outcome, then less and less often, in
  // proportion to the verify window.
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
  return { book, teller, topups, balanceWatch, balanceGuard };
}
