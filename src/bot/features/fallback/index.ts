import { Composer } from "grammy";
import type { BotContext } from "../../context.js";
import { startTopupKeyboard } from "../../shared/callback-data.js";

/** Last in line: every update that nothing else took gets an answer, never silence. */
export const fallback = new Composer<BotContext>();

/** A button of a finished or forged menu: its dead buttons give way to a fresh start. */
fallback.on("callback_query", async (ctx) => {
  await ctx.answerCallbackQuery(ctx.t("menu-expired"));
  const restart = startTopupKeyboard(ctx.t("button-start-again"));
  if (ctx.flowExpired) await ctx.reply(ctx.t("session-expired"), { reply_markup: restart });
  else await ctx.editMessageReplyMarkup({ reply_markup: restart }).catch(() => undefined);
});

fallback.chatType("private").on("message", async (ctx) => {
  if (ctx.flowExpired) {
    await ctx.reply(ctx.t("session-expired"), { reply_markup: { remove_keyboard: true } });
    return;
  }
  const isCommand = ctx.message.text?.startsWith("/") ?? false;
  await ctx.reply(ctx.t(isCommand ? "hint-unknown-command" : "hint-start"));
});
