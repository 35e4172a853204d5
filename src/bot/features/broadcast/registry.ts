// The subscriber registry seen from Telegram: who talks to the bot in private, /stop and
// /start for announcements, and users who block or unblock the bot.
import { Composer } from "grammy";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../shared/i18n.js";
import { broadcastButtons } from "./callback-data.js";

const UNSUBSCRIBE = broadcastButtons.encode({ kind: "unsubscribe" });
/** The registry is refreshed at most this often per chat, to keep updates cheap. */
const REFRESH_MS = 3_600_000;

export function createRegistry(deps: BotDeps): Composer<BotContext> {
  const registry = new Composer<BotContext>();
  const chat = registry.chatType("private");

  chat.use(async (ctx, next) => {
    const language = localeOf(ctx);
    const now = deps.now();
    const seen = ctx.session.seen;
    if (!seen || seen.language !== language || now - seen.at > REFRESH_MS) {
      await deps.subscribers.seen(ctx.from.id, language, now);
      ctx.session.seen = { at: now, language };
    }
    await next();
  });

  chat.command("start", async (ctx, next) => {
    await deps.subscribers.setSubscribed(ctx.from.id, true);
    await next();
  });
  chat.command("stop", async (ctx) => {
    await deps.subscribers.setSubscribed(ctx.from.id, false);
    await ctx.reply(ctx.t("unsubscribed"));
  });
  chat.callbackQuery(UNSUBSCRIBE, async (ctx) => {
    await deps.subscribers.setSubscribed(ctx.from.id, false);
    await ctx.answerCallbackQuery(ctx.t("unsubscribed"));
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
  });

  // Blocking the bot (or unblocking it) arrives as a change of the bot's membership.
  chat.on("my_chat_member", async (ctx) => {
    const status = ctx.myChatMember.new_chat_member.status;
    await deps.subscribers.setActive(ctx.myChatMember.from.id, status !== "kicked");
  });
  return registry;
}
