// Telegram Payments as the domain's payment system: the invoice is a message in the buyer's
// chat (drawn and sent by the bot through the InvoiceChannel), its payload the purchase id;
// withdrawn by deleting the message, so that a cancelled or expired invoice cannot be paid.
// Telegram confirms a payment itself (successful_payment): there is nothing to look up, and its
// Bot API cannot refund a card payment (a person does, refunds.ts).
import type { InvoiceChannel, PaymentOffer, PaymentSystem } from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";

/** Telegram's limit on an invoice's payload. */
const PAYLOAD_BYTES = 128;

export class TelegramPayments implements PaymentSystem {
  readonly method = "telegram" as const;

  constructor(private readonly invoices: InvoiceChannel) {}

  async offer(purchase: Purchase): Promise<PaymentOffer> {
    const payment = purchase.payment;
    if (!payment) throw new Error("a purchase without a payment has no invoice");
    if (Buffer.byteLength(purchase.id) > PAYLOAD_BYTES) {
      throw new RangeError("the purchase id does not fit an invoice payload");
    }
    return { handle: await this.invoices.send(purchase, payment) };
  }

  async withdraw(purchase: Purchase): Promise<void> {
    const offer = purchase.payment?.offer;
    if (offer === undefined) return;
    await this.invoices.delete(purchase, offer);
  }

  /** The invoice paid keeps no Cancel: only the button Telegram requires first (its receipt). */
  async paid(purchase: Purchase): Promise<void> {
    const payment = purchase.payment;
    if (payment?.method !== this.method || payment.offer === undefined) return;
    await this.invoices.paid(purchase, payment.offer);
  }
}
