// Paying in the bot (PAYMENT_METHODS): the registry of the payment systems offered, in the
// buyer's order, the refund desk and the payment service. Nothing when subscribers do not pay
// here (top-ups by listed users). A new method is its adapter and one line of SYSTEMS.
import type { LedgerTarget } from "../adapters/ledger/connection.js";
import type { Logger } from "../adapters/logger.js";
import { FonepayPayments } from "../adapters/payments/fonepay/fonepay.js";
import { FilePaymentJournal, onOneFileSystem } from "../adapters/payments/journal.js";
import { KhaltiPayments } from "../adapters/payments/khalti/khalti.js";
import { TelegramPayments } from "../adapters/payments/telegram/telegram-payments.js";
import { TelegramInvoices } from "../bot/features/payments/invoices.js";
import { KHALTI_RETURN_PATH } from "../bot/features/payments/khalti-return.js";
import { TelegramPaymentAlarm } from "../bot/features/payments/payment-alarm.js";
import { ShownLinks, TelegramPaymentLinks } from "../bot/features/payments/payment-links.js";
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
import { fonepaySystem, hearFonepay } from "./fonepay.js";
import type { Purchases } from "./purchases.js";
import type { Stores } from "./stores.js";

/** Refund calls to a payment system's API before a person takes over. */
const REFUND_TRIES = 3;
/** The shortest lease on a refund through a system's API. */
const REFUND_LEASE_MIN_MS = 30_000;
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
  /** The payment journal's folder: taken first at start, left last at stop (one process's). */
  journal: Pick<FilePaymentJournal, "open" | "close">;
  /** What the systems hold open is closed (Fonepay's sockets): the process stops. */
  close(): void;
  /** Khalti's and eSewa's links just shown, for the Mini App to open in place. */
  links: ShownLinks;
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
  const links = new ShownLinks();
  const systems: PaymentSystems = new Map(
    payment.methods.map((settings) => [
      settings.method,
      systemOf(settings, config, telegram, { logger, subscribers: stores.subscribers, links }),
    ]),
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
      stores.alertClaims,
    ),
    (purchaseId) => purchases.topups.lastLook(purchaseId),
    logger,
    // Systems that refund through their API (Khalti): a few tries, then a person (/refunds).
    {
      systems,
      retryMs: payment.checkMs,
      maxAttempts: REFUND_TRIES,
      // Over a last look and one refund call (each bounded by the provider's timeout); a lease
      // left by a process that died lapses after it, and another desk takes the refund over.
      leaseMs: Math.max(REFUND_LEASE_MIN_MS, 8 * config.provider.timeoutMs),
    },
  );
  // The desk tells through the teller, so it learns what the teller told by listening. A refund
  // owed starts as its purchase is first told, whether or not its buyer can be.
  purchases.teller.whenReached("refund-due", (purchase) => refunds.purchaseOwed(purchase));
  purchases.teller.whenTold("unknown", (purchase) => refunds.outcomeUnknown(purchase));
  purchases.teller.whenUnreachable((purchase) => refunds.buyerUnreachable(purchase));
  warnIfBesideTheLedger(stores.ledger.target, config.paymentJournal.dir, logger);
  const journal = new FilePaymentJournal(
    config.paymentJournal.dir,
    config.paymentJournal.key,
    logger,
  );
  const service = new PaymentService(
    purchases.book,
    stores.purchases,
    journal,
    purchases.topups,
    purchases.teller,
    systems,
    refunds,
    new TelegramPaymentAlarm(
      telegram.api,
      telegram.i18n,
      stores.subscribers,
      stores.alertClaims,
      {
        adminUserIds: config.adminUserIds,
        supportChatIds: config.supportChatIds,
        repeatMs: config.providerHealth.alertRepeatMs,
      },
      logger,
    ),
    () => parts.provider.state === "closed",
    {
      currency: payment.currency,
      minorDigits: payment.minorDigits,
      windowMs: payment.windowMs,
      lockTtlMs: config.topup.lockTtlMs,
      retryMs: JOURNAL_RETRY_MS,
      checkMs: payment.checkMs,
      closingMs: payment.closingMs,
      graceMs: payment.graceMs,
      askIntervalMs: config.returnPage.lookupIntervalMs,
    },
    logger,
  );
  // Fonepay's sockets' messages lead to its status call (a hint only).
  hearFonepay(systems, stores.purchases, service);
  // Systems that can be asked but refund by a person's hand (eSewa): refunds seen done there.
  const watched: PaymentSystems = new Map(
    [...systems].filter(([, system]) => system.lookup && !system.refund),
  );
  const watch =
    watched.size > 0
      ? new RefundWatch(stores.purchases, purchases.book, watched, refunds, payment.checkMs, logger)
      : undefined;
  const close = () => {
    for (const system of systems.values()) if (system instanceof FonepayPayments) system.close();
  };
  return { methods: [...systems.keys()], systems, service, refunds, watch, journal, close, links };
}

/**
 * The journal keeps what the ledger could not take: on the embedded ledger's own disk, one full
 * or lost disk takes both. Said at start, with the way out. The ledger is the one opened (the
 * playground's lives in memory), not the one configured.
 */
function warnIfBesideTheLedger(ledger: LedgerTarget, journalDir: string, logger: Logger): void {
  if (ledger.kind !== "embedded" || ledger.dataDir === null) return;
  if (!onOneFileSystem(ledger.dataDir, journalDir)) return;
  logger.warn(
    { dataDir: ledger.dataDir, journalDir },
    "the payment journal is on the embedded ledger's disk: a full or lost disk loses both; set PAYMENT_JOURNAL_DIR to a folder on another disk, or DATABASE_URL",
  );
}

type SystemFactory<M extends PaymentMethod> = (
  settings: Extract<MethodSettings, { method: M }>,
  config: Config,
  telegram: TelegramPorts,
  parts: SystemParts,
) => PaymentSystem;

type SystemParts = Parameters<typeof fonepaySystem>[3];

/** Each method's payment system, built from its settings: one line per method. */
const SYSTEMS: { [M in PaymentMethod]: SystemFactory<M> } = {
  telegram: (settings, _config, { api, i18n, formatter }) =>
    new TelegramPayments(new TelegramInvoices(api, settings.providerToken, i18n, formatter)),
  khalti: (settings, config, { api, i18n, formatter }, { links }) =>
    new KhaltiPayments(
      {
        baseUrl: settings.baseUrl,
        secretKey: settings.secretKey,
        timeoutMs: config.provider.timeoutMs,
        expiryMarginMs: settings.expiryMarginMs,
      },
      new TelegramPaymentLinks(api, i18n, formatter, links),
      {
        returnUrl: new URL(KHALTI_RETURN_PATH, settings.publicUrl).toString(),
        websiteUrl: settings.publicUrl,
      },
    ),
  esewa: esewaSystem,
  fonepay: fonepaySystem,
};

function systemOf(
  settings: MethodSettings,
  config: Config,
  telegram: TelegramPorts,
  parts: SystemParts,
) {
  const build = SYSTEMS[settings.method] as SystemFactory<PaymentMethod>;
  return build(settings as never, config, telegram, parts);
}
