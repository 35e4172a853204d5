// Refunds said in Telegram: every admin (in their language) and support group is alerted with
// what the payment provider needs to refund by hand, and whoever paid a payment that paid for
// nothing (its payer where the system names one, else the buyer) is told it will be (or was)
// refunded. A refund due and a buyer who cannot be messaged are said once per payment (claimed
// in the alert ledger: every process that tells the purchase starts its refund).
import type { Api } from "grammy";
import type { AlertClaims, Refund } from "../../../domain/payment.js";
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

/** Alerts said once per payment, claimed for a month (the ledger keeps the refund). */
const ONCE_PER_PAYMENT: ReadonlySet<RefundAlertKind> = new Set(["refund-due", "buyer-unreachable"]);
const CLAIM_MS = 30 * 86_400_000;

export class TelegramRefundChannel implements RefundChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
    private readonly subscribers: SubscriberStore,
    private readonly recipients: RefundRecipients,
    private readonly log: Log,
    private readonly claims?: AlertClaims,
  ) {}

  async alertOperators(refund: RefundAlert, about: RefundAlertKind): Promise<void> {
    if (this.claims && ONCE_PER_PAYMENT.has(about)) {
      const subject = `${about}:${refund.method}:${refund.chargeId}`;
      // The alert ledger away: better twice than never.
      const first = await this.claims.claim(subject, CLAIM_MS).catch(() => true);
      if (!first) return;
    }
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
    const payer = refund.payer ?? refund.buyer;
    if (payer === null) return;
    // Someone else paid the buyer's invoice: told in their own language, not the purchase's.
    const otherPayer = refund.buyer !== null && payer !== refund.buyer;
    const language =
      (otherPayer ? null : refund.language) ?? (await registeredLanguage(this.subscribers, payer));
    const facts = refundFacts(refund, this.formatter(language), this.recipients.minorDigits);
    // Given back in part outside the bot before: what is (or was) refunded is the rest.
    const part = refund.refundedOutside !== undefined;
    const key =
      state === "refunded"
        ? part
          ? "part-refunded-rest-refunded"
          : "stray-payment-refunded"
        : part
          ? "stray-payment-part-refunded"
          : otherPayer
            ? "stray-payment-not-buyer"
            : "stray-payment-owed";
    await this.api.sendMessage(payer, this.i18n.t(language, key, facts));
  }
}
