// Refunds said in Telegram: every admin (in their language) and support group is alerted with
// what the payment provider needs to refund by hand, and the buyer of a payment that paid for
// nothing is told it will be (or was) refunded.
import type { Api } from "grammy";
import type { Refund } from "../../../domain/payment.js";
import type { Log } from "../../../domain/ports.js";
import type { RefundAlert, RefundAlertKind, RefundChannel } from "../../../domain/refunds.js";
import type { SubscriberStore } from "../../../domain/subscribers.js";
import { registeredLanguage, type Translator } from "../../shared/i18n.js";
import { type Operators, tellOperators } from "../../shared/operators.js";
import type { ValueFormatter } from "../../shared/values.js";
import { refundFacts } from "./views.js";

export interface RefundRecipients extends Operators {
  minorDigits: number;
}

export class TelegramRefundChannel implements RefundChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
    private readonly subscribers: SubscriberStore,
    private readonly recipients: RefundRecipients,
    private readonly log: Log,
  ) {}

  async alertOperators(refund: RefundAlert, about: RefundAlertKind): Promise<void> {
    const { failed } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) =>
        this.i18n.t(
          language,
          `${about}-alert`,
          refundFacts(refund, this.formatter(language), this.recipients.minorDigits),
        ),
    );
    if (failed > 0) this.log.warn({ failed }, "some operators were not told of a refund due");
  }

  async tellBuyer(refund: Refund, state: "owed" | "refunded"): Promise<void> {
    if (refund.buyer === null) return;
    const language = refund.language ?? (await registeredLanguage(this.subscribers, refund.buyer));
    const facts = refundFacts(refund, this.formatter(language), this.recipients.minorDigits);
    const key = state === "owed" ? "stray-payment-owed" : "stray-payment-refunded";
    await this.api.sendMessage(refund.buyer, this.i18n.t(language, key, facts));
  }
}
