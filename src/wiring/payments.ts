// Paying in the bot (PAYMENT_MODE telegram or khalti): the payment system, the refund desk and
// the payment service. Nothing when subscribers do not pay here (top-ups by listed users).
import type { Logger } from "../adapters/logger.js";
import { FilePaymentJournal } from "../adapters/payments/journal.js";
import { KHALTI_MINIMUM_PAISA, KhaltiPayments } from "../adapters/payments/khalti.js";
import { TelegramPayments } from "../adapters/payments/telegram-payments.js";
import { TelegramInvoices } from "../bot/features/payments/invoices.js";
import { KHALTI_RETURN_PATH } from "../bot/features/payments/khalti-return.js";
import { TelegramPaymentLinks } from "../bot/features/payments/payment-links.js";
import { TelegramRefundChannel } from "../bot/features/payments/refund-channel.js";
import type { TelegramPorts } from "../bot/ports.js";
import type { Config } from "../config.js";
import type { PaymentSystem } from "../domain/payment.js";
import { PaymentService } from "../domain/payment-service.js";
import type { ProviderHealth } from "../domain/provider-health.js";
import { RefundWatch } from "../domain/refund-watch.js";
import { RefundDesk } from "../domain/refunds.js";
import { esewaSystem } from "./esewa.js";
import type { Purchases } from "./purchases.js";
import type { Stores } from "./stores.js";

/** Refund calls to a payment system's API before a person takes over. */
const REFUND_TRIES = 3;
/** The payment journal is replayed into the ledger this often while it holds any. */
const JOURNAL_RETRY_MS = 1_000;

type PaymentSettings = NonNullable<Config["payment"]>;

export interface Payments {
  method: PaymentSettings["method"];
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
  const system = paymentSystem(payment, config, telegram);
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
    // Khalti refunds through its API: a few tries, then a person (/refunds).
    system.refund ? { system, retryMs: payment.checkMs, maxAttempts: REFUND_TRIES } : undefined,
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
    system,
    refunds,
    () => parts.provider.state === "closed",
    {
      currency: payment.currency,
      minorDigits: payment.minorDigits,
      windowMs: payment.windowMs,
      lockTtlMs: config.topup.lockTtlMs,
      retryMs: JOURNAL_RETRY_MS,
      checkMs: payment.checkMs,
      ...(payment.method === "khalti" && { minimumMinor: KHALTI_MINIMUM_PAISA }),
    },
    logger,
  );
  const watch =
    system.lookup && !system.refund
      ? new RefundWatch(stores.purchases, purchases.book, system, refunds, payment.checkMs, logger)
      : undefined;
  return { method: payment.method, service, refunds, watch };
}

/** The Telegram invoice, or Khalti's web checkout with its link in the chat. */
function paymentSystem(
  payment: PaymentSettings,
  config: Config,
  telegram: TelegramPorts,
): PaymentSystem {
  const { api, i18n, formatter } = telegram;
  if (payment.method === "telegram") {
    return new TelegramPayments(new TelegramInvoices(api, payment.providerToken, i18n, formatter));
  }
  if (payment.method === "esewa") return esewaSystem(payment, config, telegram);
  return new KhaltiPayments(
    {
      baseUrl: payment.baseUrl,
      secretKey: payment.secretKey,
      timeoutMs: config.provider.timeoutMs,
    },
    new TelegramPaymentLinks(api, i18n, formatter),
    {
      returnUrl: new URL(KHALTI_RETURN_PATH, payment.publicUrl).toString(),
      websiteUrl: payment.publicUrl,
    },
  );
}
