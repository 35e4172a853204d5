// A Fonepay QR in the chat: the QR as an image, its caption (what is paid, the amount, how to
// pay it, until when) and its buttons ("I have paid", Cancel; the other methods stay under the
// summary above it, as for every method); "scanned" said once; the buttons taken away when the
// offer is withdrawn or paid; a QR that cannot be shown said plainly, and the operators told of
// one that fails its checksum and of Fonepay refusing QR requests.
import { type Api, InlineKeyboard, InputFile } from "grammy";
import type { PendingKind } from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";
import type { SubscriberStore } from "../../../domain/subscribers.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import { type Operators, tellOperators } from "../../shared/operators.js";
import type { ValueFormatter } from "../../shared/values.js";
import { invoiceButtons } from "./callback-data.js";
import type { ShownLinks } from "./payment-links.js";

export class TelegramFonepayQr {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
    private readonly subscribers: SubscriberStore,
    private readonly operators: Operators,
    /** The QR just shown, for the Mini App to show too. */
    private readonly shown?: ShownLinks,
  ) {}

  private t(purchase: Purchase): Translate {
    return (key, variables) => this.i18n.t(purchase.language, key, variables);
  }

  async show(purchase: Purchase, png: Uint8Array, payableUntil: number): Promise<string> {
    this.shown?.remember(purchase.id, {
      qr: `data:image/png;base64,${Buffer.from(png).toString("base64")}`,
    });
    const t = this.t(purchase);
    const fmt = this.formatter(purchase.language);
    const caption = t("fonepay-qr-caption", {
      bouquet: escapeHtml(purchase.bouquet.name),
      price: fmt.amount(purchase.bouquet.price),
      until: fmt.clock(payableUntil),
    });
    const check = invoiceButtons.encode({ kind: "check", purchaseId: purchase.id });
    const cancel = invoiceButtons.encode({ kind: "cancel", purchaseId: purchase.id });
    const message = await this.api.sendPhoto(purchase.buyer, new InputFile(png, "fonepay-qr.png"), {
      caption,
      reply_markup: new InlineKeyboard()
        .text(t("button-i-have-paid"), check)
        .text(t("button-cancel"), cancel),
    });
    return String(message.message_id);
  }

  async scanned(purchase: Purchase): Promise<void> {
    await this.api.sendMessage(purchase.buyer, this.t(purchase)("fonepay-scanned"));
  }

  async pending(purchase: Purchase, how: PendingKind): Promise<void> {
    const key = how === "unfinished" ? "payment-check-unfinished" : "payment-check-pending";
    await this.api.sendMessage(purchase.buyer, this.t(purchase)(key));
  }

  /**
   * "paid" is said of the purchase, not of this QR: the purchase's message is its latest QR,
   * and the payment may have come on an earlier one (saved, then switched away and back).
   */
  async hide(purchase: Purchase, why: "withdrawn" | "paid"): Promise<void> {
    const message = purchase.statusMessage;
    if (message === undefined) return;
    await this.api.editMessageCaption(purchase.buyer, Number(message), {
      caption: this.t(purchase)(why === "paid" ? "fonepay-qr-paid" : "fonepay-qr-withdrawn"),
      reply_markup: undefined,
    });
  }

  async notShown(purchase: Purchase, why: { refused: string } | "bad-qr"): Promise<void> {
    const t = this.t(purchase);
    const text =
      why === "bad-qr"
        ? t("fonepay-qr-invalid")
        : t("fonepay-refused", { message: escapeHtml(why.refused || "—") });
    await this.api.sendMessage(purchase.buyer, text);
  }

  async alertBadQr(purchase: Purchase, reason: string): Promise<void> {
    await tellOperators(this.api, this.subscribers, this.operators, (language) =>
      this.i18n.t(language, "fonepay-qr-invalid-alert", {
        purchase: escapeHtml(purchase.id),
        reason: escapeHtml(reason),
      }),
    );
  }

  async alertRefused(refusal: { code: string; message: string }): Promise<void> {
    await tellOperators(this.api, this.subscribers, this.operators, (language) =>
      this.i18n.t(language, "fonepay-refused-alert", {
        code: escapeHtml(refusal.code),
        message: escapeHtml(refusal.message || "—"),
      }),
    );
  }
}
