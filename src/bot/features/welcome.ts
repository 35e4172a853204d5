import { Composer, InlineKeyboard } from "grammy";
import type { BotContext } from "../context.js";
import { START_TOPUP } from "./topup/entry.js";

export const welcome = new Composer<BotContext>();
const chat = welcome.chatType("private");

chat.command("start", (ctx) =>
  ctx.reply(ctx.t("welcome"), {
    reply_markup: new InlineKeyboard().text(ctx.t("button-start-topup"), START_TOPUP),
  }),
);
chat.command("help", (ctx) => ctx.reply(ctx.t("help")));
