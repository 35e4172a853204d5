// A payment link in the chat (Khalti's, eSewa's): "Pay NPR 700.00 with Khalti" opening the link,
// "I have paid" (look it up now) and Cancel; withdrawn, the buttons go away.
import { type Api, InlineKeyboard } from "grammy";
import type { PaymentLinkChannel, PendingKind } from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";
import type { Translator } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { invoiceButtons } from "./callback-data.js";

/** Links kept at most this long for the Mini App that asked for them. */
const SHOWN_LINK_MS = 60_000;

/** What the chat was just shown to pay with: a payment system's page, or Fonepay's QR image. */
export type ShownWay = { link: string } | { qr: string };

/**
 * The ways to pay just shown, by purchase id, for the Mini App: its request opens the offer in
 * this very process and takes the way straight after (the app opens a link in place, openLink,
 * or shows the QR). Kept briefly, in memory: a link is never a payment, only the way to one.
 */
export class ShownLinks {
  private readonly shown = new Map<string, { way: ShownWay; at: number }>();
  private readonly awaited = new Map<string, (way: ShownWay) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  remember(purchaseId: string, way: ShownWay): void {
    const now = this.now();
    for (const [id, kept] of this.shown) if (now - kept.at > SHOWN_LINK_MS) this.shown.delete(id);
    this.shown.set(purchaseId, { way, at: now });
    this.awaited.get(purchaseId)?.(way);
    this.awaited.delete(purchaseId);
  }

  /**
   * The way to pay of the purchase this request is opening, as soon as it is shown (the offer
   * is recorded before it is): the app need not wait for the chat's message to be sent.
   * `stop` when the opening ended without it.
   */
  awaitShown(purchaseId: string): { shown: Promise<ShownWay>; stop(): void } {
    const shown = new Promise<ShownWay>((resolve) => this.awaited.set(purchaseId, resolve));
    return { shown, stop: () => this.awaited.delete(purchaseId) };
  }

  take(purchaseId: string): ShownWay | undefined {
    const kept = this.shown.get(purchaseId);
    this.shown.delete(purchaseId);
    return kept && this.now() - kept.at <= SHOWN_LINK_MS ? kept.way : undefined;
  }
}

export class TelegramPaymentLinks implements PaymentLinkChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
    private readonly shown?: ShownLinks,
  ) {}

  async show(purchase: Purchase, paymentUrl: string): Promise<string> {
    this.shown?.remember(purchase.id, { link: paymentUrl });
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

  /**
   * The payment is held (do not pay again), or was started and not finished (eSewa's PENDING):
   * a message of its own, so that the buyer is notified.
   */
  async pending(purchase: Purchase, how: PendingKind): Promise<void> {
    const key = how === "unfinished" ? "payment-check-unfinished" : "payment-check-pending";
    await this.api.sendMessage(purchase.buyer, this.i18n.t(purchase.language, key));
  }

  /**
   * Withdrawn (another way chosen, cancelled, ended): the link's buttons go, and its text says
   * so, naming its system. An outcome told after (the purchase ended) takes its place in turn.
   */
  async hide(purchase: Purchase): Promise<void> {
    if (purchase.statusMessage === undefined) return;
    const system = purchase.payment?.method === "esewa" ? "esewa" : "khalti";
    await this.api.editMessageText(
      purchase.buyer,
      Number(purchase.statusMessage),
      this.i18n.t(purchase.language, "link-withdrawn", { method: system }),
      { reply_markup: undefined },
    );
  }
}
