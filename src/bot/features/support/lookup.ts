// /lookup <code>: the full customer card, with a Refresh button that re-runs the lookup and
// edits the card in place.
import { Composer } from "grammy";
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import { lookUpCustomer } from "../../../domain/support.js";
import type { BotContext } from "../../context.js";
import { escapeHtml } from "../../format/html.js";
import { editQuietly } from "../topup/menu.js";
import { decodeRefresh, REFRESH_DATA } from "./callback-data.js";
import { answer, audited, formatterOf, guarded, type SupportTools, translator } from "./tools.js";
import { customerCardText, refreshKeyboard } from "./views.js";

export function createLookup(tools: SupportTools): Composer<BotContext> {
  const lookup = new Composer<BotContext>();
  const { deps } = tools;

  lookup.command(
    "lookup",
    guarded(tools, "lookup", async (ctx) => {
      const t = translator(ctx);
      const raw = typeof ctx.match === "string" ? ctx.match.trim() : "";
      if (raw === "") return answer(ctx, t("support-lookup-usage"));
      const check = normalizeCustomerCode(raw);
      if (!check.ok) return answer(ctx, t("support-code-invalid"));
      const code = check.code;
      await audited(tools, ctx, "lookup", code);
      const found = await lookUpCustomer(deps.provider, code, deps.logger);
      if (found.kind === "not-found") {
        return answer(ctx, t("support-customer-not-found", { code: escapeHtml(code) }));
      }
      if (found.kind === "failed") return answer(ctx, t("support-unavailable"));
      const refId = await tools.refs.create({ code, chatId: ctx.chat?.id ?? 0 });
      const text = customerCardText(found.details, t, formatterOf(tools, ctx), deps.now());
      return answer(ctx, text, { reply_markup: refreshKeyboard(refId, t) });
    }),
  );

  lookup.callbackQuery(
    REFRESH_DATA,
    guarded(tools, "refresh", async (ctx) => {
      const t = translator(ctx);
      const refId = decodeRefresh(ctx.callbackQuery?.data ?? "") ?? "";
      const ref = await tools.refs.resolve(refId);
      if (!ref || ref.chatId !== ctx.chat?.id) {
        await ctx.answerCallbackQuery(t("support-card-expired"));
        return;
      }
      await audited(tools, ctx, "refresh", ref.code);
      // Answered at once: the provider may take longer than Telegram waits for an answer.
      await ctx.answerCallbackQuery(t("support-refreshing"));
      const found = await lookUpCustomer(deps.provider, ref.code, deps.logger);
      if (found.kind === "not-found") {
        await editQuietly(ctx, t("support-customer-not-found", { code: escapeHtml(ref.code) }));
        return;
      }
      if (found.kind === "failed") {
        // The card stays as it was; the apology goes under it.
        await answer(ctx, t("support-unavailable"));
        return;
      }
      const text = customerCardText(found.details, t, formatterOf(tools, ctx), deps.now());
      await editQuietly(ctx, text, refreshKeyboard(refId, t));
    }),
  );

  return lookup;
}
