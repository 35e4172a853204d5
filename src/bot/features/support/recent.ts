// /recent [code]: the latest top-ups made through the bot, optionally of one customer.
import { Composer } from "grammy";
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import { recentTopups } from "../../../domain/support.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { escapeHtml } from "../../shared/html.js";
import { audited } from "../../shared/staff.js";
import { answer, formatterOf, translator } from "./audit.js";
import { RECENT_SHOWN, recentText } from "./views.js";

export function createRecent(deps: BotDeps): Composer<BotContext> {
  const recent = new Composer<BotContext>();

  recent.command("recent", async (ctx) => {
    const t = translator(ctx);
    const raw = ctx.match.trim();
    let code: string | undefined;
    if (raw !== "") {
      // Connection ids and customer ids as typed; mobile numbers normalised.
      if (!normalizeCustomerCode(raw).ok) return answer(ctx, t("support-code-invalid"));
      code = raw;
    }
    await audited(deps, ctx, "recent", code ?? "");
    const found = await recentTopups(
      deps.purchases,
      deps.provider,
      code,
      RECENT_SHOWN,
      deps.logger,
    );
    if (found.kind === "not-found") {
      return answer(ctx, t("support-customer-not-found", { code: escapeHtml(code ?? "") }));
    }
    if (found.kind === "failed") return answer(ctx, t("support-unavailable"));
    return answer(ctx, recentText(found.purchases, code, t, formatterOf(deps, ctx)));
  });

  return recent;
}
