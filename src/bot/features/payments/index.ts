// Paying in the bot, in the chat's turn: Cancel under the invoice or link, Khalti's "I have
// paid", and staff's /refunds and refunders' /refunded for the refunds a person makes through
// the payment provider. Telegram's pre-checkout and confirmation come first: confirmations.ts.
import { Composer } from "grammy";
import type { PaymentService } from "../../../domain/payment-service.js";
import type { RefundDesk } from "../../../domain/refunds.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import { localeOf } from "../../shared/i18n.js";
import { audited, requireRole } from "../../shared/staff.js";
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

  // Admins and refunders in private; staff in the support groups (shared/staff.ts).
  const staff = composer.filter(
    (ctx) =>
      (ctx.chat?.type === "private" && deps.staff.isRefunder(ctx.from?.id ?? 0)) ||
      deps.staff.isSupportChat(ctx.chat?.id),
  );
  staff.command("refunds", requireRole(deps, "refunds"), async (ctx) => {
    await audited(deps, ctx, "refunds", "");
    const due = await refunds.due(REFUNDS_READ);
    const fmt = deps.formatter(localeOf(ctx));
    await ctx.reply(
      refundsView(due, (key, variables) => ctx.t(key, variables), fmt, minorDigits, deps.now()),
    );
  });
  staff.command("refunded", requireRole(deps, "refunded"), async (ctx) => {
    const [key = "", ...note] = ctx.match.trim().split(/\s+/);
    if (!key) {
      await ctx.reply(ctx.t("refunded-usage"));
      return;
    }
    await audited(deps, ctx, "refunded", key);
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
