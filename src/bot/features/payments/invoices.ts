// Telegram's invoice in the buyer's chat (the InvoiceChannel of adapters/payments/
// telegram-payments.ts), within Telegram's limits: title 32 characters, description 255,
// amounts in minor units; Pay and Cancel beneath it.
import { type Api, InlineKeyboard } from "grammy";
import { parseBouquetName } from "../../../domain/bouquet-name.js";
import type { InvoiceChannel } from "../../../domain/payment.js";
import type { Purchase, PurchasePayment } from "../../../domain/purchase.js";
import { FORWARDED_INVOICE } from "../../shared/deep-links.js";
import { truncate } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { billingLabel, type Translate } from "../../shared/labels.js";
import { shownId } from "../../shared/masking.js";
import type { ValueFormatter } from "../../shared/values.js";
import { invoiceButtons } from "./callback-data.js";

const INVOICE_LIMITS = { title: 32, description: 255 } as const;

export class TelegramInvoices implements InvoiceChannel {
  constructor(
    private readonly api: Api,
    private readonly providerToken: string,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
  ) {}

  /** The invoice's title, description and price as the buyer reads them, in their language. */
  private wording(purchase: Purchase) {
    const t: Translate = (key, variables) => this.i18n.t(purchase.language, key, variables);
    const fmt = this.formatter(purchase.language);
    const bouquet = parseBouquetName(purchase.bouquet.name);
    // As the summary above it shows it: in full only when the buyer proved the customer theirs.
    const id = shownId(purchase.connection.id, purchase.proved);
    const connection = `${t(`service-${purchase.connection.service}`)} ${id}`;
    const price = fmt.amount(purchase.bouquet.price);
    const title = truncate(bouquet.displayName, INVOICE_LIMITS.title);
    const description = truncate(
      t("invoice-description", {
        bouquet: bouquet.displayName,
        period: billingLabel(bouquet, t),
        connection,
        price,
      }),
      INVOICE_LIMITS.description,
    );
    return { t, title, description, price };
  }

  async send(purchase: Purchase, payment: PurchasePayment): Promise<string> {
    const { t, title, description, price } = this.wording(purchase);
    const message = await this.api.sendInvoice(
      purchase.buyer,
      title,
      description,
      purchase.id,
      payment.currency,
      [{ label: title, amount: payment.minor }],
      {
        provider_token: this.providerToken,
        // A forwarded copy opens the bot (and says whose it is) instead of offering Pay.
        start_parameter: FORWARDED_INVOICE,
        reply_markup: new InlineKeyboard()
          .pay(t("button-pay", { price }))
          .row()
          .text(
            t("button-cancel"),
            invoiceButtons.encode({ kind: "cancel", purchaseId: purchase.id }),
          ),
      },
    );
    return String(message.message_id);
  }

  /**
   * The same invoice as a link the Mini App opens in place (openInvoice): the same payload, so
   * its pre_checkout_query and successful_payment are the chat invoice's, checked the same way.
   */
  async link(purchase: Purchase, payment: PurchasePayment): Promise<string> {
    const { title, description } = this.wording(purchase);
    return this.api.createInvoiceLink(
      title,
      description,
      purchase.id,
      this.providerToken,
      payment.currency,
      [{ label: title, amount: payment.minor }],
    );
  }

  async delete(purchase: Purchase, handle: string): Promise<void> {
    await this.api.deleteMessage(purchase.buyer, Number(handle));
  }

  /**
   * Paid: Cancel goes. An invoice's keyboard must keep its Pay button first, so that one stays,
   * named for what Telegram shows once paid (the receipt).
   */
  async paid(purchase: Purchase, handle: string): Promise<void> {
    await this.api.editMessageReplyMarkup(purchase.buyer, Number(handle), {
      reply_markup: paidInvoiceKeyboard(this.i18n.t(purchase.language, "button-receipt")),
    });
  }
}

/** A paid invoice's keyboard: the Pay button alone (Telegram shows the receipt behind it). */
export const paidInvoiceKeyboard = (label: string) => new InlineKeyboard().pay(label);
