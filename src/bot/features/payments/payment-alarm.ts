// What only a person can settle about a payment, said in Telegram: every admin (in their
// language) and support group is alerted when a confirmation could be kept nowhere, when a
// payment is set aside (or an offer stays unsettled at its payment system after it could no
// longer be paid), and when payment journal lines are quarantined; the buyer of a payment
// set aside is told that staff check it. Each alert is claimed in the alert ledger first, so
// that replicas and restarts say it once.
import type { Api } from "grammy";
import type {
  AlertClaims,
  PaymentAlarm,
  ReceivedPayment,
  SetAside,
} from "../../../domain/payment.js";
import type { Log } from "../../../domain/ports.js";
import type { SubscriberStore } from "../../../domain/subscribers.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { type Operators, tellOperators } from "../../shared/operators.js";
import { setAsideFacts } from "./views.js";

/** A payment set aside is said once for good (a month: the ledger's row is the record). */
const SET_ASIDE_CLAIM_MS = 30 * 86_400_000;

export interface AlarmRecipients extends Operators {
  /** A confirmation still kept nowhere is said again after this (ALERT_REPEAT_MINUTES). */
  repeatMs: number;
}

export class TelegramPaymentAlarm implements PaymentAlarm {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly subscribers: SubscriberStore,
    private readonly claims: AlertClaims,
    private readonly recipients: AlarmRecipients,
    private readonly log: Log,
  ) {}

  async notKept(payment: ReceivedPayment): Promise<void> {
    const subject = `kept-nowhere:${payment.method}:${payment.charge.id}`;
    if (!(await this.claimed(subject, this.recipients.repeatMs))) return;
    await this.tell("alert-payment-kept-nowhere", {
      purchase: escapeHtml(truncate(payment.purchaseId, 128)),
      charge: escapeHtml(truncate(payment.charge.id, 128)),
    });
  }

  async setAside(payment: SetAside): Promise<void> {
    const subject = `${payment.kind === "unsettled" ? "unsettled" : "set-aside"}:${payment.method}:${payment.chargeId}`;
    if (!(await this.claimed(subject, SET_ASIDE_CLAIM_MS))) return;
    const key =
      payment.kind === "unsettled" ? "alert-payment-unsettled" : "alert-payment-set-aside";
    await this.tell(key, setAsideFacts(payment));
  }

  async tellBuyer(buyer: number, language: string): Promise<void> {
    await this.api.sendMessage(buyer, this.i18n.t(language, "payment-set-aside-told"));
  }

  async quarantined(lines: number): Promise<void> {
    await this.tell("alert-journal-quarantined", { lines });
  }

  /** The claim, or true when the alert ledger cannot be asked: better twice than never. */
  private claimed(subject: string, ttlMs: number): Promise<boolean> {
    return this.claims.claim(subject, ttlMs).catch(() => true);
  }

  private async tell(key: string, variables: Record<string, string | number>): Promise<void> {
    const { failed, total } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) => this.i18n.t(language, key, variables),
    );
    if (failed > 0) this.log.warn({ failed, alert: key }, "some operators were not alerted");
    if (failed === total && total > 0) throw new Error("no operator could be alerted");
  }
}
