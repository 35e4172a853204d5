import { Composer } from "grammy";
import type { BotContext } from "../context.js";

export const welcome = new Composer<BotContext>();

welcome.command("start", (ctx) => ctx.reply(ctx.t("welcome")));
welcome.command("help", (ctx) => ctx.reply(ctx.t("help")));
