// /history: the user's own last top-ups through the bot, newest first, with their outcome.
import { Composer } from "grammy";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../shared/i18n.js";
import { HISTORY_SHOWN, historyText } from "./views.js";

export function createHistory(deps: BotDeps): Composer<BotContext> {
  const history = new Composer<BotContext>();
  history.chatType("private").command("history", async (ctx) => {
    // Only purchases this Telegram user confirmed: the list is kept per buyer.
    const purchases = await deps.purchases.ofBuyer(ctx.from.id, HISTORY_SHOWN);
    const t = (key: string, variables?: Record<string, string | number>) => ctx.t(key, variables);
    await ctx.reply(historyText(purchases, t, deps.formatter(localeOf(ctx))));
  });
  return history;
}
