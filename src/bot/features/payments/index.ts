// Paying in the bot, in the chat's turn: Cancel under the invoice or link, Khalti's "I have
// paid", and staff's /refunds and refunders' /refunded for the refunds a person makes through
// the payment provider. Telegram's pre-checkout and confirmation come first: confirmations.ts.
import { Composer } from "grammy";
import type { Refund } from "../../../domain/payment.js";
import type { PaymentService } from "../../../domain/payment-service.js";
import type { RefundDesk } from "../../../domain/refunds.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { entryButtons, startTopupKeyboard } from "../../shared/callback-data.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import { localeOf } from "../../shared/i18n.js";
import { methodName } from "../../shared/method-labels.js";
import { audited, requireRole } from "../../shared/staff.js";
import { invoiceButtons } from "./callback-data.js";
import { paidInvoiceKeyboard } from "./invoices.js";
import { refundsView, setAsideView } from "./views.js";

const REFUNDS_READ = 100;

export function createPayments(
  deps: BotDeps,
  payments: PaymentService,
  refunds: Pick<RefundDesk, "due" | "refundingAutomatically">,
  minorDigits: number,
): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.callbackQuery(invoiceButtons.filter, async (ctx) => {
    const button = invoiceButtons.decode(ctx.callbackQuery.data);
    if (button?.kind === "check") {
      // "I have paid": the payment system is asked now (at most once an interval per offer: a
      // tap soon after is told to wait); the chat goes on by itself if paid.
      const outcome = await payments.checkForBuyer(button.purchaseId, ctx.from.id);
      await ctx.answerCallbackQuery({ text: ctx.t(`payment-check-${outcome}`), show_alert: true });
      return;
    }
    if (!button) {
      await ctx.answerCallbackQuery(ctx.t("menu-expired"));
      return;
    }
    // Cancel: this purchase only, while it waits for its payment; a new top-up is the way on.
    const cancelled = await payments.cancelOne(button.purchaseId, ctx.from.id);
    const startAgain = startTopupKeyboard(ctx.t("button-start-again"));
    if (cancelled === "cancelled") {
      await ctx.answerCallbackQuery();
      await ctx.reply(ctx.t("invoice-cancelled"), { reply_markup: startAgain });
      return;
    }
    if (cancelled === "waiting") {
      await ctx.answerCallbackQuery({ text: ctx.t("payment-check-unknown"), show_alert: true });
      return;
    }
    // Paid or ended already: a button left over. It goes; an invoice keeps its Pay (receipt).
    await ctx.answerCallbackQuery(ctx.t("menu-expired"));
    const keyboard = ctx.callbackQuery.message?.invoice
      ? paidInvoiceKeyboard(ctx.t("button-receipt"))
          .row()
          .text(ctx.t("button-start-again"), entryButtons.encode("topup"))
      : startAgain;
    await ctx.editMessageReplyMarkup({ reply_markup: keyboard }).catch(() => undefined);
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
    const aside = await payments.setAsideOpen(REFUNDS_READ);
    const fmt = deps.formatter(localeOf(ctx));
    const t = (key: string, variables?: Record<string, string | number>) => ctx.t(key, variables);
    // The payments set aside under a heading of their own (a message of their own: length).
    if (due.length > 0 || aside.length === 0) {
      const automatic = (refund: Refund) => refunds.refundingAutomatically(refund);
      await ctx.reply(refundsView(due, t, fmt, minorDigits, deps.now(), automatic));
    }
    if (aside.length > 0) await ctx.reply(setAsideView(aside, t, deps.now()));
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
    const why = note.join(" ").slice(0, 500) || null;
    // Any reference /refunds shows names the one refund owed, or payment set aside, it closes.
    const settled = await payments.settleByReference(key, by, why);
    switch (settled.kind) {
      case "refunded": {
        const purchase = escapeHtml(truncate(settled.refund.purchaseId ?? key, 64));
        await ctx.reply(ctx.t("refunded-recorded", { purchase }));
        return;
      }
      case "automatic": {
        const { refund } = settled;
        await ctx.reply(
          ctx.t("refunded-automatic", {
            purchase: escapeHtml(truncate(refund.purchaseId ?? key, 64)),
            paidWith: methodName(refund.method, ctx.t.bind(ctx)),
          }),
        );
        return;
      }
      case "closed": {
        const charge = escapeHtml(truncate(settled.setAside.chargeId, 128));
        await ctx.reply(ctx.t("set-aside-closed", { charge }));
        return;
      }
      case "ambiguous": {
        const matches = settled.matches
          .map(
            ({ method, chargeId }) =>
              `${escapeHtml(truncate(method, 40))} <code>${escapeHtml(truncate(chargeId, 128))}</code>`,
          )
          .join("\n");
        await ctx.reply(
          ctx.t("refunded-ambiguous", { key: escapeHtml(truncate(key, 64)), matches }),
        );
        return;
      }
      case "none":
        await ctx.reply(ctx.t("refunded-nothing-due", { key: escapeHtml(truncate(key, 64)) }));
    }
  });
  return composer;
}
