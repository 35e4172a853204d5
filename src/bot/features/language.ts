import { Composer, InlineKeyboard } from "grammy";
import type { BotContext } from "../context.js";

export const language = new Composer<BotContext>();
const chat = language.chatType("private");

chat.command("language", (ctx) =>
  ctx.reply(ctx.t("language-choose"), {
    reply_markup: new InlineKeyboard().text("English", "lang:en").text("नेपाली", "lang:ne"),
  }),
);

chat.callbackQuery(/^lang:(en|ne)$/, async (ctx) => {
  const chosen = ctx.match[1] === "ne" ? "ne" : "en";
  ctx.session.language = chosen;
  ctx.i18n.useLocale(chosen);
  await ctx.answerCallbackQuery();
  await ctx.editMessageText(ctx.t("language-set"));
});
