import { Composer } from "grammy";
import type { BotContext } from "../../context.js";

/** Last in line: every update that nothing else took gets an answer, never silence. */
export const fallback = new Composer<BotContext>();

fallback.on("callback_query", async (ctx) => {
  await ctx.answerCallbackQuery(ctx.t("menu-expired"));
  if (ctx.flowExpired) await ctx.reply(ctx.t("session-expired"));
});

fallback.chatType("private").on("message", async (ctx) => {
  if (ctx.flowExpired) {
    await ctx.reply(ctx.t("session-expired"), { reply_markup: { remove_keyboard: true } });
    return;
  }
  const isCommand = ctx.message.text?.startsWith("/") ?? false;
  await ctx.reply(ctx.t(isCommand ? "hint-unknown-command" : "hint-start"));
});
