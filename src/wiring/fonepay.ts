// Fonepay dynamic QR (PAYMENT_METHODS listing fonepay): the payment system, with its QR in the
// chat, and what a message on an offer's socket leads to (the payment service's check of that
// offer: the status call, the only word that pays).
import type { Logger } from "../adapters/logger.js";
import { FonepayPayments } from "../adapters/payments/fonepay/fonepay.js";
import { TelegramFonepayQr } from "../bot/features/payments/fonepay-qr.js";
import type { ShownLinks } from "../bot/features/payments/payment-links.js";
import type { TelegramPorts } from "../bot/ports.js";
import type { Config, MethodSettings } from "../config.js";
import type { PaymentLedger, PaymentSystems } from "../domain/payment.js";
import type { PaymentService } from "../domain/payment-service.js";
import type { SubscriberStore } from "../domain/subscribers.js";

type FonepaySettings = Extract<MethodSettings, { method: "fonepay" }>;

export function fonepaySystem(
  settings: FonepaySettings,
  config: Config,
  telegram: TelegramPorts,
  parts: { logger: Logger; subscribers: SubscriberStore; links: ShownLinks },
): FonepayPayments {
  const { api, i18n, formatter } = telegram;
  return new FonepayPayments(
    {
      merchantCode: settings.merchantCode,
      username: settings.username,
      password: settings.password,
      secretKey: settings.secretKey,
      apiUrl: settings.apiUrl,
      signatureCase: settings.signatureCase,
      offerMs: settings.offerMs,
      timeoutMs: config.provider.timeoutMs,
    },
    new TelegramFonepayQr(
      api,
      i18n,
      formatter,
      parts.subscribers,
      { adminUserIds: config.adminUserIds, supportChatIds: config.supportChatIds },
      parts.links,
    ),
    parts.logger,
  );
}

/** A socket's message about a prn: that offer is checked now, whatever became of its purchase. */
export function hearFonepay(
  systems: PaymentSystems,
  ledger: Pick<PaymentLedger, "byOffer">,
  service: PaymentService,
): void {
  const fonepay = systems.get("fonepay");
  if (!(fonepay instanceof FonepayPayments)) return;
  fonepay.onHint(async (prn) => {
    const purchase = await ledger.byOffer("fonepay", prn);
    if (purchase) await service.checkOffer(purchase, "fonepay", prn);
  });
}
