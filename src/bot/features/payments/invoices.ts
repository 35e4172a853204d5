// Telegram's invoice in the buyer's chat (the InvoiceChannel of adapters/payments/
// telegram-payments.ts), within Telegram's limits: title 32 characters, description 255,
// amounts in minor units; Pay and Cancel beneath it.
import { type Api, InlineKeyboard } from "grammy";
import { parseBouquetName } from "../../../domain/bouquet-name.js";
import type { InvoiceChannel } from "../../../domain/payment.js";
import type { Purchase, PurchasePayment } from "../../../domain/purchase.js";
import { truncate } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { billingLabel, type Translate } from "../../shared/labels.js";
import { maskedId } from "../../shared/masking.js";
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

  async send(purchase: Purchase, payment: PurchasePayment): Promise<string> {
    const t: Translate = (key, variables) => this.i18n.t(purchase.language, key, variables);
    const fmt = this.formatter(purchase.language);
    const bouquet = parseBouquetName(purchase.bouquet.name);
    // Masked for every buyer: a purchase does not record how its customer was found, and the
    // invoice comes before payment (the summary above it shows what the buyer may see).
    const id = maskedId(purchase.connection.id);
    const connection = `${t(`service-${purchase.connection.service}`)} ${id}`;
    const price = fmt.amount(purchase.bouquet.price);
    const message = await this.api.sendInvoice(
      purchase.buyer,
      truncate(bouquet.displayName, INVOICE_LIMITS.title),
      truncate(
        t("invoice-description", {
          bouquet: bouquet.displayName,
          period: billingLabel(bouquet, t),
          connection,
          price,
        }),
        INVOICE_LIMITS.description,
      ),
      purchase.id,
      payment.currency,
      [{ label: truncate(bouquet.displayName, INVOICE_LIMITS.title), amount: payment.minor }],
      {
        provider_token: this.providerToken,
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

  async delete(purchase: Purchase, handle: string): Promise<void> {
    await this.api.deleteMessage(purchase.buyer, Number(handle));
  }
}
