// Paying in the bot (PAYMENT_METHODS): the registry of the payment systems offered, in the
// buyer's order, the refund desk and the payment service. Nothing when subscribers do not pay
// here (top-ups by listed users). A new method is its adapter and one line of SYSTEMS.
import type { Logger } from "../adapters/logger.js";
import { FilePaymentJournal } from "../adapters/payments/journal.js";
import { KhaltiPayments } from "../adapters/payments/khalti.js";
import { TelegramPayments } from "../adapters/payments/telegram-payments.js";
import { TelegramInvoices } from "../bot/features/payments/invoices.js";
import { KHALTI_RETURN_PATH } from "../bot/features/payments/khalti-return.js";
import { TelegramPaymentLinks } from "../bot/features/payments/payment-links.js";
import { TelegramRefundChannel } from "../bot/features/payments/refund-channel.js";
import type { TelegramPorts } from "../bot/ports.js";
import type { Config, MethodSettings } from "../config.js";
import type { PaymentSystem, PaymentSystems } from "../domain/payment.js";
import { PaymentService } from "../domain/payment-service.js";
import type { ProviderHealth } from "../domain/provider-health.js";
import type { PaymentMethod } from "../domain/purchase.js";
import { RefundWatch } from "../domain/refund-watch.js";
import { RefundDesk } from "../domain/refunds.js";
import { esewaSystem } from "./esewa.js";
import type { Purchases } from "./purchases.js";
import type { Stores } from "./stores.js";

/** Refund calls to a payment system's API before a person takes over. */
const REFUND_TRIES = 3;
/** The payment journal is replayed into the ledger this often while it holds any. */
const JOURNAL_RETRY_MS = 1_000;

export interface Payments {
  /** The methods offered, in the order of the buyer's buttons. */
  methods: PaymentMethod[];
  systems: PaymentSystems;
  service: PaymentService;
  refunds: RefundDesk;
  /** Refunds made by hand that the system's own check can see done (eSewa's FULL_REFUND). */
  watch: RefundWatch | undefined;
}

export function createPayments(parts: {
  config: Config;
  logger: Logger;
  stores: Stores;
  provider: ProviderHealth;
  purchases: Purchases;
  telegram: TelegramPorts;
}): Payments | undefined {
  const { config, logger, stores, purchases, telegram } = parts;
  const payment = config.payment;
  if (!payment) return undefined;
  if (payment.deprecatedMode) {
    logger.warn(
      { method: payment.deprecatedMode },
      "PAYMENT_MODE is deprecated and will be removed in the next release: set PAYMENT_METHODS instead",
    );
  }
  const systems: PaymentSystems = new Map(
    payment.methods.map((settings) => [settings.method, systemOf(settings, config, telegram)]),
  );
  const refunds = new RefundDesk(
    purchases.book,
    stores.purchases,
    purchases.teller,
    new TelegramRefundChannel(
      telegram.api,
      telegram.i18n,
      telegram.formatter,
      stores.subscribers,
      {
        adminUserIds: config.adminUserIds,
        supportChatIds: config.supportChatIds,
        minorDigits: payment.minorDigits,
      },
      logger,
    ),
    (purchaseId) => purchases.topups.lastLook(purchaseId),
    logger,
    // Systems that refund through their API (Khalti): a few tries, then a person (/refunds).
    { systems, retryMs: payment.checkMs, maxAttempts: REFUND_TRIES },
  );
  // The desk tells through the teller, so it learns what the teller told by listening.
  purchases.teller.whenTold("refund-due", (purchase) => refunds.purchaseOwed(purchase));
  purchases.teller.whenTold("unknown", (purchase) => refunds.outcomeUnknown(purchase));
  const service = new PaymentService(
    purchases.book,
    stores.purchases,
    new FilePaymentJournal(config.dataDir, logger),
    purchases.topups,
    purchases.teller,
    systems,
    refunds,
    () => parts.provider.state === "closed",
    {
      currency: payment.currency,
      minorDigits: payment.minorDigits,
      windowMs: payment.windowMs,
      lockTtlMs: config.topup.lockTtlMs,
      retryMs: JOURNAL_RETRY_MS,
      checkMs: payment.checkMs,
    },
    logger,
  );
  // Systems that can be asked but refund by a person's hand (eSewa): refunds seen done there.
  const watched: PaymentSystems = new Map(
    [...systems].filter(([, system]) => system.lookup && !system.refund),
  );
  const watch =
    watched.size > 0
      ? new RefundWatch(stores.purchases, purchases.book, watched, refunds, payment.checkMs, logger)
      : undefined;
  return { methods: [...systems.keys()], systems, service, refunds, watch };
}

type SystemFactory<M extends PaymentMethod> = (
  settings: Extract<MethodSettings, { method: M }>,
  config: Config,
  telegram: TelegramPorts,
) => PaymentSystem;

/** Each method's payment system, built from its settings: one line per method. */
const SYSTEMS: { [M in PaymentMethod]: SystemFactory<M> } = {
  telegram: (settings, _config, { api, i18n, formatter }) =>
    new TelegramPayments(new TelegramInvoices(api, settings.providerToken, i18n, formatter)),
  khalti: (settings, config, { api, i18n, formatter }) =>
    new KhaltiPayments(
      {
        baseUrl: settings.baseUrl,
        secretKey: settings.secretKey,
        timeoutMs: config.provider.timeoutMs,
      },
      new TelegramPaymentLinks(api, i18n, formatter),
      {
        returnUrl: new URL(KHALTI_RETURN_PATH, settings.publicUrl).toString(),
        websiteUrl: settings.publicUrl,
      },
    ),
  esewa: esewaSystem,
};

function systemOf(settings: MethodSettings, config: Config, telegram: TelegramPorts) {
  const build = SYSTEMS[settings.method] as SystemFactory<PaymentMethod>;
  return build(settings as never, config, telegram);
}
