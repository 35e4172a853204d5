// /start and /help.
import { Composer, InlineKeyboard } from "grammy";
import type { BotContext } from "../../context.js";
import { entryButtons } from "../../shared/callback-data.js";

export const start = new Composer<BotContext>();
const chat = start.chatType("private");

chat.command("start", (ctx) =>
  ctx.reply(ctx.t("welcome"), {
    reply_markup: new InlineKeyboard().text(
      ctx.t("button-start-topup"),
      entryButtons.encode("topup"),
    ),
  }),
);
chat.command("help", (ctx) => ctx.reply(ctx.t("help")));
