// Telegram Payments' two updates that carry money, handled ahead of every other middleware
// (bot.ts): the flood limit, Redis (the update gate, sessions) and the conversations could each
// drop or stall them. The last check before the money is taken (pre_checkout_query, answered
// within Telegram's 10 seconds, once the chat's earlier updates are applied: a Pay right after
// /cancel is refused; only the buyer may pay) and the confirmation (successful_payment,
// recorded before anything else with who paid; a repeat is known by its charge id in the
// ledger). Without a session, the buyer's language is their purchase's, else their Telegram
// client's; someone else paying the buyer's invoice is answered in their own.
import { Composer } from "grammy";
import type { PaymentCheck, PaymentService } from "../../../domain/payment-service.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { truncate } from "../../shared/html.js";
import { localeFromTelegram } from "../../shared/i18n.js";

/** Telegram cancels a payment whose check is not answered within 10 s: answer well before. */
const CHECK_ANSWER_MS = 7_000;
/** Of which the chat's earlier updates may take this much (shared/earlier-updates.ts). */
const EARLIER_UPDATES_MS = 3_000;

/** Waits, at most `withinMs`, for the chat's updates before this one; false when it gave up. */
export type EarlierUpdates = (
  chatId: number,
  updateId: number,
  withinMs: number,
) => Promise<boolean>;

export function paymentConfirmations(
  deps: BotDeps,
  payments: PaymentService,
  earlierUpdates: EarlierUpdates,
): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const translator = (ctx: BotContext, language: string | undefined) => (key: string) =>
    deps.i18n.t(language ?? localeFromTelegram(ctx.from?.language_code), key);

  composer.on("pre_checkout_query", async (ctx) => {
    const query = ctx.preCheckoutQuery;
    const payer = query.from.id;
    const late = new Promise<PaymentCheck>((resolve) =>
      setTimeout(() => resolve({ refusal: "ledger-unavailable" }), CHECK_ANSWER_MS).unref(),
    );
    // The payer's private chat is the buyer's when the payer is the buyer (anyone else is
    // refused anyway): what they did before tapping Pay is applied first.
    const checked = earlierUpdates(payer, ctx.update.update_id, EARLIER_UPDATES_MS)
      .catch(() => false)
      .then((applied) => {
        if (!applied) {
          deps.logger.info(
            { purchaseId: truncate(query.invoice_payload, 64) },
            "payment checked before the chat's earlier updates were applied",
          );
        }
        return payments.check(query.invoice_payload, query.currency, query.total_amount, payer);
      });
    const { refusal, language } = await Promise.race([checked, late]);
    if (refusal === null) {
      await ctx.answerPreCheckoutQuery(true);
      return;
    }
    deps.logger.info(
      { purchaseId: truncate(query.invoice_payload, 64), refusal },
      "payment refused",
    );
    const t = translator(ctx, language);
    await ctx.answerPreCheckoutQuery(false, { error_message: t(`payment-refused-${refusal}`) });
  });

  composer.on("message:successful_payment", async (ctx) => {
    const paid = ctx.message.successful_payment;
    const purchaseId = paid.invoice_payload;
    // Throws when neither the ledger nor the journal took it: Telegram must deliver it again.
    const received = await payments.receive({
      method: "telegram",
      purchaseId,
      currency: paid.currency,
      minor: paid.total_amount,
      // Who paid: a payment by anyone but the buyer pays for nothing and is owed back to them.
      payer: ctx.from?.id ?? null,
      charge: {
        id: paid.telegram_payment_charge_id,
        providerId: paid.provider_payment_charge_id || null,
        at: ctx.message.date * 1000,
      },
    });
    if (received === "applied") {
      const t = translator(ctx, await payments.languageOf(purchaseId));
      await ctx.reply(t("payment-received"));
    } else if (received === "kept") {
      // The ledger is away, and with it the purchase's language.
      const t = translator(ctx, undefined);
      await ctx.reply(t("payment-processing"));
    }
  });
  return composer;
}

/**
 * Without payment methods nobody is sent an invoice; a payment that arrives anyway (the
 * mode changed with invoices still open) is money received: said loudly, never ignored.
 */
export function unexpectedPayments(deps: BotDeps): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.on("message:successful_payment", (ctx) => {
    const paid = ctx.message.successful_payment;
    deps.logger.error(
      {
        purchaseId: truncate(paid.invoice_payload, 64),
        chargeId: paid.telegram_payment_charge_id,
        providerChargeId: paid.provider_payment_charge_id,
      },
      "a payment arrived while nobody pays in the bot: refund it by hand",
    );
  });
  return composer;
}
