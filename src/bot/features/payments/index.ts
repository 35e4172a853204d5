// Paying in the bot. Telegram Payments: the last check before the money is taken
// (pre_checkout_query, answered within Telegram's 10 seconds) and the confirmation
// (successful_payment, recorded before anything else). Either system: Cancel under the invoice
// or link, Khalti's "I have paid", and support's /refunds and /refunded for the refunds a
// person makes through the payment provider.
import { Composer } from "grammy";
import type { PaymentService } from "../../../domain/payments.js";
import type { RefundDesk } from "../../../domain/refunds.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import { localeOf } from "../../shared/i18n.js";
import { invoiceButtons } from "./callback-data.js";
import { refundsView } from "./views.js";

/** Telegram cancels a payment whose check is not answered within 10 s: answer well before. */
const CHECK_ANSWER_MS = 7_000;
const REFUNDS_READ = 100;

export function createPayments(
  deps: BotDeps,
  payments: PaymentService,
  refunds: RefundDesk,
  minorDigits: number,
): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.on("pre_checkout_query", async (ctx) => {
    const query = ctx.preCheckoutQuery;
    const late = new Promise<"ledger-unavailable">((resolve) =>
      setTimeout(() => resolve("ledger-unavailable"), CHECK_ANSWER_MS).unref(),
    );
    const refusal = await Promise.race([
      payments.check(query.invoice_payload, query.currency, query.total_amount),
      late,
    ]);
    if (refusal === null) {
      await ctx.answerPreCheckoutQuery(true);
      return;
    }
    deps.logger.info(
      { purchaseId: truncate(query.invoice_payload, 64), refusal },
      "payment refused",
    );
    await ctx.answerPreCheckoutQuery(false, { error_message: ctx.t(`payment-refused-${refusal}`) });
  });

  composer.on("message:successful_payment", async (ctx) => {
    const paid = ctx.message.successful_payment;
    const received = await payments.receive({
      method: "telegram",
      purchaseId: paid.invoice_payload,
      currency: paid.currency,
      minor: paid.total_amount,
      charge: {
        id: paid.telegram_payment_charge_id,
        providerId: paid.provider_payment_charge_id || null,
        at: ctx.message.date * 1000,
      },
    });
    if (received === "applied" || received === "kept") await ctx.reply(ctx.t("payment-received"));
  });

  composer.callbackQuery(invoiceButtons.filter, async (ctx) => {
    const button = invoiceButtons.decode(ctx.callbackQuery.data);
    if (button?.kind === "check") {
      // "I have paid": the payment system is asked now; the chat goes on by itself if paid.
      const outcome = await payments.checkNow(button.purchaseId);
      await ctx.answerCallbackQuery({ text: ctx.t(`payment-check-${outcome}`), show_alert: true });
      return;
    }
    const withdrawn = await payments.cancel(ctx.from.id);
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t(withdrawn > 0 ? "invoice-cancelled" : "nothing-to-cancel"));
  });

  // Admins in private, and the support groups.
  const staff = composer.filter(
    (ctx) =>
      (ctx.chat?.type === "private" && deps.config.adminUserIds.includes(ctx.from?.id ?? 0)) ||
      deps.config.supportChatIds.includes(ctx.chat?.id ?? 0),
  );
  staff.command("refunds", async (ctx) => {
    const due = await refunds.due(REFUNDS_READ);
    const fmt = deps.formatter(localeOf(ctx));
    await ctx.reply(
      refundsView(due, (key, variables) => ctx.t(key, variables), fmt, minorDigits, deps.now()),
    );
  });
  staff.command("refunded", async (ctx) => {
    const [key = "", ...note] = ctx.match.trim().split(/\s+/);
    if (!key) {
      await ctx.reply(ctx.t("refunded-usage"));
      return;
    }
    const who = ctx.from;
    const by = `telegram:${who?.id ?? "?"}${who?.username ? ` @${who.username}` : ""}`;
    const done = await refunds.markRefunded(key, by, note.join(" ").slice(0, 500) || null);
    await ctx.reply(
      done
        ? ctx.t("refunded-recorded", { purchase: escapeHtml(done.purchaseId ?? key) })
        : ctx.t("refunded-nothing-due", { key: escapeHtml(truncate(key, 64)) }),
    );
  });
  return composer;
}

/**
 * Without PAYMENT_MODE=telegram nobody is sent an invoice; a payment that arrives anyway (the
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
      "a payment arrived while PAYMENT_MODE is not telegram: refund it by hand",
    );
  });
  return composer;
}
