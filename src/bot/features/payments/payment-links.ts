// A payment link in the chat (Khalti's, eSewa's): "Pay NPR 700.00 with Khalti" opening the link,
// "I have paid" (look it up now) and Cancel; withdrawn, the buttons go away.
import { type Api, InlineKeyboard } from "grammy";
import type { PaymentLinkChannel } from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";
import type { Translator } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { invoiceButtons } from "./callback-data.js";

export class TelegramPaymentLinks implements PaymentLinkChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
  ) {}

  async show(purchase: Purchase, paymentUrl: string): Promise<string> {
    const t: Translate = (key, variables) => this.i18n.t(purchase.language, key, variables);
    const price = this.formatter(purchase.language).amount(purchase.bouquet.price);
    const check = invoiceButtons.encode({ kind: "check", purchaseId: purchase.id });
    const cancel = invoiceButtons.encode({ kind: "cancel", purchaseId: purchase.id });
    const system = purchase.payment?.method === "esewa" ? "esewa" : "khalti";
    const message = await this.api.sendMessage(purchase.buyer, t(`${system}-link`, { price }), {
      reply_markup: new InlineKeyboard()
        .url(t(`button-pay-${system}`, { price }), paymentUrl)
        .row()
        .text(t("button-i-have-paid"), check)
        .text(t("button-cancel"), cancel),
    });
    return String(message.message_id);
  }

  /** The payment is held: a message of its own, so that the buyer is notified. */
  async pending(purchase: Purchase): Promise<void> {
    await this.api.sendMessage(
      purchase.buyer,
      this.i18n.t(purchase.language, "payment-check-pending"),
    );
  }

  async hide(purchase: Purchase): Promise<void> {
    if (purchase.statusMessage === undefined) return;
    await this.api.editMessageReplyMarkup(purchase.buyer, Number(purchase.statusMessage), {
      reply_markup: undefined,
    });
  }
}
