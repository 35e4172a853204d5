// How a purchase's outcome reads in Telegram: the receipt, a decline, "nothing was charged",
// "still checking". The domain's OutcomeTeller decides when it is told; this only says it.
import { type Api, GrammyError, InlineKeyboard } from "grammy";
import { parseBouquetName } from "../../../domain/bouquet-name.js";
import { BuyerUnreachableError, type OutcomeChannel } from "../../../domain/outcomes.js";
import { fromMinorUnits } from "../../../domain/payment.js";
import type { NotChargedReason, Purchase, UnpaidReason } from "../../../domain/purchase.js";
import { startTopupKeyboard } from "../../shared/callback-data.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { billingLabel, type Translate } from "../../shared/labels.js";
import { shownId } from "../../shared/masking.js";
import type { ValueFormatter } from "../../shared/values.js";
import { topupButtons } from "./callback-data.js";

const NOT_CHARGED_KEYS: Record<NotChargedReason, string> = {
  declined: "purchase-rejected",
  verified: "not-charged",
  unavailable: "provider-unavailable",
  paused: "topups-paused",
  interrupted: "purchase-interrupted",
  "offer-changed": "not-charged",
  cancelled: "invoice-cancelled",
  expired: "invoice-expired",
  "amount-differs": "invoice-expired",
  failed: "invoice-failed",
  "refunded-outside": "invoice-refunded-outside",
};

/** Why a paid top-up did not happen, in the words of the refund message. */
const REFUND_WHY: Partial<Record<NotChargedReason, string>> = {
  declined: "refund-why-declined",
  "offer-changed": "refund-why-offer-changed",
};

export class TelegramOutcomes implements OutcomeChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
    /** Digits of the payment currency's minor unit (when subscribers pay in the bot). */
    private readonly minorDigits = 2,
    /** The Mini App's address: a receipt's "Renew in the shop" opens it on that connection. */
    private readonly shopUrl?: string,
  ) {}

  /** A message in the buyer's language outside any update (progress, apologies). */
  async say(buyer: number, locale: string, key: string): Promise<void> {
    await this.api.sendMessage(buyer, this.i18n.t(locale, key));
  }

  /** A menu offered outside any update (a purchase that must be confirmed again). */
  async sendMenu(buyer: number, text: string, keyboard: InlineKeyboard): Promise<void> {
    await this.api.sendMessage(buyer, text, { reply_markup: keyboard });
  }

  /**
   * The first outcome replaces the "payment under way" message, which the buyer is looking
   * at. A later one (after "still checking") is a new message: an edit would not notify them.
   */
  async tell(purchase: Purchase): Promise<void> {
    const t: Translate = (key, variables) => this.i18n.t(purchase.language, key, variables);
    const { text, keyboard } = this.render(purchase, t);
    if (purchase.told === null && purchase.statusMessage !== undefined) {
      const replaced = await this.api
        .editMessageText(purchase.buyer, Number(purchase.statusMessage), text, {
          reply_markup: keyboard,
        })
        .then(
          () => true,
          // Gone, too old or not ours any more: say it in a new message instead.
          () => false,
        );
      if (replaced) return;
    }
    try {
      await this.api.sendMessage(purchase.buyer, text, { reply_markup: keyboard });
    } catch (error) {
      // 403: blocked by the user, or the account deleted: it will never go out.
      if (error instanceof GrammyError && error.error_code === 403) {
        throw new BuyerUnreachableError(error.description);
      }
      throw error;
    }
  }

  /** The menu's other ways to pay go once the purchase no longer waits for a payment. */
  async closeMenu(purchase: Purchase): Promise<void> {
    if (purchase.menuMessage === undefined) return;
    try {
      await this.api.editMessageReplyMarkup(purchase.buyer, Number(purchase.menuMessage), {
        reply_markup: undefined,
      });
    } catch (error) {
      // Closed already (a stale tap, another instance): nothing left to take away.
      if (error instanceof GrammyError && error.description.includes("not modified")) return;
      throw error;
    }
  }

  /** A payment found after the purchase ended: a message of its own, so that it notifies. */
  async paidLate(purchase: Purchase, reason: UnpaidReason): Promise<void> {
    const amount = purchase.payment
      ? this.formatter(purchase.language).amount(
          fromMinorUnits(purchase.payment.minor, this.minorDigits),
        )
      : this.formatter(purchase.language).amount(purchase.bouquet.price);
    const bouquet = parseBouquetName(purchase.bouquet.name);
    await this.api.sendMessage(
      purchase.buyer,
      this.i18n.t(purchase.language, "payment-late", {
        amount,
        bouquet: escapeHtml(truncate(bouquet.displayName, 120)),
        reason,
      }),
    );
  }

  private render(purchase: Purchase, t: Translate): { text: string; keyboard?: InlineKeyboard } {
    if (purchase.phase === "charged" && purchase.transaction) {
      const keyboard = afterReceipt(t);
      // A reminder needs the new end date, so only a receipt that has it offers one.
      if (purchase.reference && purchase.renewedUntil?.at != null) {
        const remind = topupButtons.encode({
          kind: "remind-receipt",
          reference: purchase.reference,
        });
        keyboard.row().text(t("remind-receipt-button"), remind);
      }
      if (this.shopUrl !== undefined) {
        // The app opens this purchase's connection's packages (the buyer's own purchase only).
        const renew = `${this.shopUrl}?renew=${encodeURIComponent(purchase.id)}`;
        keyboard.row().webApp(t("button-renew-in-shop"), renew);
      }
      return { text: this.receipt(purchase, purchase.transaction, t), keyboard };
    }
    // Nobody paid in the bot (PAYMENT_MODE=none): no text may speak of a payment.
    if (purchase.phase === "unknown") {
      return { text: t(purchase.payment ? "still-checking" : "still-checking-topup") };
    }
    // Paid, and waiting for the provider to take our token again (told once, at once).
    if (purchase.phase === "paid") return { text: t("topups-paused-paid") };
    if (purchase.phase === "refund-due" || purchase.phase === "refunded") {
      return { text: this.refund(purchase, t) };
    }
    const reason = purchase.reason ?? "verified";
    const text = t(NOT_CHARGED_KEYS[reason], {
      code: escapeHtml(truncate(purchase.refusal?.code ?? "", 64)),
      method: purchase.payment?.method ?? "none",
    });
    // Cancelled or ended unpaid: the way on is a new top-up.
    if (purchase.phase === "unpaid") {
      return { text, keyboard: startTopupKeyboard(t("button-start-again")) };
    }
    if (reason !== "verified" || !purchase.reference) return { text };
    const retry = topupButtons.encode({ kind: "retry", reference: purchase.reference });
    return { text, keyboard: new InlineKeyboard().text(t("button-retry"), retry) };
  }

  private receipt(
    purchase: Purchase,
    transaction: NonNullable<Purchase["transaction"]>,
    t: Translate,
  ): string {
    const fmt = this.formatter(purchase.language);
    const bouquet = parseBouquetName(purchase.bouquet.name);
    const lines = [
      t("receipt", {
        txnId: escapeHtml(truncate(transaction.txnId, 64)),
        bouquet: escapeHtml(truncate(bouquet.displayName, 120)),
        period: billingLabel(bouquet, t),
        amount: fmt.amount(transaction.amount),
      }),
    ];
    if (transaction.date) lines.push(t("receipt-date", { date: fmt.moment(transaction.date) }));
    const until = purchase.renewedUntil;
    lines.push(
      until ? t("receipt-renewed-until", { date: fmt.moment(until) }) : t("receipt-renewed"),
    );
    const id = shownId(purchase.connection.id, purchase.proved);
    const connection = `${t(`service-${purchase.connection.service}`)} ${id}`;
    lines.push(t("receipt-connection", { connection: escapeHtml(truncate(connection, 80)) }));
    const paid = this.payment(purchase);
    if (paid) lines.push(t("receipt-payment", paid));
    return lines.join("\n");
  }

  /** Owed back, or given back: the amount and the reference the buyer can quote. */
  private refund(purchase: Purchase, t: Translate): string {
    const paid = this.payment(purchase) ?? { amount: "?", reference: "?", method: "" };
    if (purchase.phase === "refunded") return t("refunded-told", paid);
    const why = t(REFUND_WHY[purchase.reason ?? "unavailable"] ?? "refund-why-unavailable");
    return t("refund-due-told", { ...paid, why });
  }

  private payment(
    purchase: Purchase,
  ): { amount: string; reference: string; method: string } | undefined {
    const payment = purchase.payment;
    if (!payment?.charge) return undefined;
    const fmt = this.formatter(purchase.language);
    return {
      amount: fmt.amount(fromMinorUnits(payment.minor, this.minorDigits)),
      reference: escapeHtml(truncate(payment.charge.providerId ?? payment.charge.id, 64)),
      method: payment.method,
    };
  }
}

const afterReceipt = (t: Translate) =>
  new InlineKeyboard()
    .text(t("button-another"), topupButtons.encode({ kind: "another" }))
    .text(t("button-done"), topupButtons.encode({ kind: "done" }));
