// Paying in the bot, in the chat's turn: Cancel under the invoice or link, Khalti's "I have
// paid", and support's /refunds and /refunded for the refunds a person makes through the
// payment provider. Telegram's pre-checkout and confirmation come first: confirmations.ts.
import { Composer } from "grammy";
import type { PaymentService } from "../../../domain/payments.js";
import type { RefundDesk } from "../../../domain/refunds.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import { localeOf } from "../../shared/i18n.js";
import { invoiceButtons } from "./callback-data.js";
import { refundsView } from "./views.js";

const REFUNDS_READ = 100;

export function createPayments(
  deps: BotDeps,
  payments: PaymentService,
  refunds: RefundDesk,
  minorDigits: number,
): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.callbackQuery(invoiceButtons.filter, async (ctx) => {
    const button = invoiceButtons.decode(ctx.callbackQuery.data);
    if (button?.kind === "check") {
      // "I have paid": the payment system is asked now; the chat goes on by itself if paid.
      const outcome = await payments.checkForBuyer(button.purchaseId, ctx.from.id);
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
