// Telegram Payments as the domain's payment system: the invoice (within Telegram's limits:
// title 32 characters, description 255, payload 128 bytes, amounts in minor units), and its
// withdrawal by deleting the message, so that a cancelled or expired invoice cannot be paid.
import { type Api, InlineKeyboard } from "grammy";
import { parseBouquetName } from "../../../domain/bouquet-name.js";
import type { PaymentOffer, PaymentSystem } from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";
import { truncate } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { billingLabel, type Translate } from "../../shared/labels.js";
import { maskedId } from "../../shared/masking.js";
import type { ValueFormatter } from "../../shared/values.js";
import { invoiceButtons } from "./callback-data.js";

const INVOICE_LIMITS = { title: 32, description: 255, payloadBytes: 128 } as const;

export class TelegramInvoices implements PaymentSystem {
  readonly method = "telegram" as const;

  constructor(
    private readonly api: Api,
    private readonly providerToken: string,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
  ) {}

  async offer(purchase: Purchase): Promise<PaymentOffer> {
    const payment = purchase.payment;
    if (!payment) throw new Error("a purchase without a payment has no invoice");
    if (Buffer.byteLength(purchase.id) > INVOICE_LIMITS.payloadBytes) {
      throw new RangeError("the purchase id does not fit an invoice payload");
    }
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
    return { handle: String(message.message_id) };
  }

  async withdraw(purchase: Purchase): Promise<void> {
    const offer = purchase.payment?.offer;
    if (offer === undefined) return;
    await this.api.deleteMessage(purchase.buyer, Number(offer));
  }
}
