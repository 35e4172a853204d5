// /start and /help. /start from a forwarded invoice's link says the invoice is someone else's.
import { Composer, InlineKeyboard } from "grammy";
import type { BotContext } from "../../context.js";
import { entryButtons } from "../../shared/callback-data.js";
import { FORWARDED_INVOICE } from "../../shared/deep-links.js";
import { withShopButton } from "../../shared/shop.js";

/** `shopUrl`: the Mini App's address, when there is one (its button under the welcome). */
export function createStart(shopUrl: string | undefined): Composer<BotContext> {
  const start = new Composer<BotContext>();
  const chat = start.chatType("private");
  chat.command("start", (ctx) =>
    ctx.reply(ctx.t(ctx.match === FORWARDED_INVOICE ? "start-forwarded-invoice" : "welcome"), {
      reply_markup: withShopButton(
        new InlineKeyboard().text(ctx.t("button-start-topup"), entryButtons.encode("topup")),
        (key, variables) => ctx.t(key, variables),
        shopUrl,
      ),
    }),
  );
  chat.command("help", (ctx) => ctx.reply(ctx.t("help")));
  return start;
}
