// Who may top up here. Nobody pays in the bot (PAYMENT_MODE=none): the provider debits the
// operator's balance, so only the users of TOPUP_USER_IDS (the operator's agents, or everyone
// with "*") may start a top-up; anyone else is told so, and no customer is looked up: in the
// chat and in the shop's API alike.
import type { MiddlewareFn } from "grammy";
import type { Config } from "../../../config.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { entryButtons } from "../../shared/callback-data.js";
import { topupButtons } from "./callback-data.js";

/** The buttons that lead to a lookup or a purchase. */
const LEADS_TO_TOPUP = new Set([
  "menu",
  "connection",
  "another",
  "saved",
  "retry",
  "renew-reminder",
]);

function startsTopup(ctx: BotContext): boolean {
  if (ctx.hasCommand("topup")) return true;
  // A contact in the private chat is looked up as under /topup (a group's is nobody's).
  if (ctx.message?.contact && ctx.chat?.type === "private") return true;
  const data = ctx.callbackQuery?.data;
  if (data === undefined) return false;
  if (entryButtons.filter.test(data)) return true;
  const button = topupButtons.filter.test(data) ? topupButtons.decode(data) : null;
  return button != null && LEADS_TO_TOPUP.has(button.kind);
}

/** Whether the user may look customers up and top up here. */
export function mayTopUp(config: Pick<Config, "topupUsers">, user: number | undefined): boolean {
  const allowed = config.topupUsers;
  return allowed === "everyone" || (user !== undefined && allowed.includes(user));
}

export function topupAccess(deps: Pick<BotDeps, "config">): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    if (mayTopUp(deps.config, ctx.from?.id) || !startsTopup(ctx)) return next();
    if (ctx.callbackQuery) {
      await ctx.answerCallbackQuery({ text: ctx.t("topup-agents-only"), show_alert: true });
    } else await ctx.reply(ctx.t("topup-agents-only"));
  };
}
