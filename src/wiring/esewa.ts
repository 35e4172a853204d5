// eSewa ePay v2 (PAYMENT_METHODS listing esewa): the payment system, with its link in the chat, and its
// pages on the public HTTP server (the pay page posting the signed form, the redirects).
import {
  EsewaCheckout,
  type EsewaOptions,
  EsewaPayments,
} from "../adapters/payments/esewa/esewa.js";
import { ESEWA_PATHS, esewaPages } from "../bot/features/payments/esewa-pages.js";
import { type ShownLinks, TelegramPaymentLinks } from "../bot/features/payments/payment-links.js";
import type { TelegramPorts } from "../bot/ports.js";
import type { Translator } from "../bot/shared/i18n.js";
import type { ValueFormatter } from "../bot/shared/values.js";
import type { Config, MethodSettings } from "../config.js";
import type { PaymentLedger } from "../domain/payment.js";
import type { PaymentService } from "../domain/payment-service.js";

type EsewaSettings = Extract<MethodSettings, { method: "esewa" }>;

function esewaOptions(payment: EsewaSettings, config: Config): EsewaOptions {
  const under = (path: string) => new URL(path, payment.publicUrl).toString();
  return {
    productCode: payment.productCode,
    secretKey: payment.secretKey,
    formUrl: payment.formUrl,
    statusUrl: payment.statusUrl,
    timeoutMs: config.provider.timeoutMs,
    pages: {
      pay: under(ESEWA_PATHS.pay),
      success: under(ESEWA_PATHS.success),
      failure: under(ESEWA_PATHS.failure),
    },
  };
}

export function esewaSystem(
  payment: EsewaSettings,
  config: Config,
  telegram: TelegramPorts,
  parts: { links: ShownLinks },
): EsewaPayments {
  const { api, i18n, formatter } = telegram;
  return new EsewaPayments(
    esewaOptions(payment, config),
    new TelegramPaymentLinks(api, i18n, formatter, parts.links),
  );
}

/** The public server's eSewa pages; none unless eSewa is listed. */
export function esewaPagesOf(parts: {
  config: Config;
  ledger: Pick<PaymentLedger, "byOffer" | "keepOfferUntil">;
  payments: PaymentService;
  i18n: Translator;
  formatter: (locale: string) => ValueFormatter;
  /** The bot's chat in Telegram, for the pages' "Back to Telegram". */
  chatLink: () => string;
}) {
  const payment = parts.config.payment?.methods.find(
    (settings): settings is EsewaSettings => settings.method === "esewa",
  );
  if (!payment) return [];
  return esewaPages({
    ...parts,
    checkout: new EsewaCheckout(esewaOptions(payment, parts.config)),
    offerMs: payment.offerMs,
  });
}
