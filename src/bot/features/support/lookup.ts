// /lookup <code>: the full customer card, with a Refresh button that re-runs the lookup and
// edits the card in place.
import { Composer } from "grammy";
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import { lookUpCustomer } from "../../../domain/support.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { editQuietly } from "../../shared/edit.js";
import { escapeHtml } from "../../shared/html.js";
import { audited } from "../../shared/staff.js";
import { answer, formatterOf, translator } from "./audit.js";
import { refreshButtons } from "./callback-data.js";
import { customerCardText, refreshKeyboard } from "./views.js";

export function createLookup(deps: BotDeps): Composer<BotContext> {
  const lookup = new Composer<BotContext>();

  lookup.command("lookup", async (ctx) => {
    const t = translator(ctx);
    const raw = ctx.match.trim();
    if (raw === "") return answer(ctx, t("support-lookup-usage"));
    const check = normalizeCustomerCode(raw);
    if (!check.ok) return answer(ctx, t("support-code-invalid"));
    const code = check.code;
    await audited(deps, ctx, "lookup", code);
    const found = await lookUpCustomer(deps.provider, code, deps.logger);
    if (found.kind === "not-found") {
      return answer(ctx, t("support-customer-not-found", { code: escapeHtml(code) }));
    }
    if (found.kind === "failed") return answer(ctx, t("support-unavailable"));
    const refId = await deps.lookupRefs.create({ code, group: ctx.chat.id });
    const text = customerCardText(found.details, t, formatterOf(deps, ctx), deps.now());
    return answer(ctx, text, { reply_markup: refreshKeyboard(refId, t) });
  });

  lookup.callbackQuery(refreshButtons.filter, async (ctx) => {
    const t = translator(ctx);
    const refId = refreshButtons.decode(ctx.callbackQuery.data);
    const ref = refId === null ? null : await deps.lookupRefs.resolve(refId);
    if (refId === null || !ref || ref.group !== ctx.chat?.id) {
      await ctx.answerCallbackQuery(t("support-card-expired"));
      return;
    }
    await audited(deps, ctx, "refresh", ref.code);
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
    const text = customerCardText(found.details, t, formatterOf(deps, ctx), deps.now());
    await editQuietly(ctx, text, refreshKeyboard(refId, t));
  });

  return lookup;
}
