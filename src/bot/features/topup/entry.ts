// Ways into the journey: /topup [code], the Start button, and the buttons under an outcome.
import { Composer } from "grammy";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../i18n.js";
import { AFTER_ANOTHER, AFTER_DONE, RETRY_DATA } from "./callback-data.js";
import { IDENTIFY } from "./identify.js";

export const START_TOPUP = "s:topup";

export async function startTopup(ctx: BotContext, code?: string): Promise<void> {
  await ctx.conversation.exitAll();
  ctx.session.journey = undefined;
  await ctx.conversation.enter(IDENTIFY, localeOf(ctx), code ?? null);
}

async function dropButtons(ctx: BotContext): Promise<void> {
  await ctx.answerCallbackQuery();
  await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
}

export function createTopupEntry(deps: BotDeps): Composer<BotContext> {
  const entry = new Composer<BotContext>();
  const chat = entry.chatType("private");

  chat.command("topup", (ctx) => startTopup(ctx, ctx.match.trim() || undefined));
  chat.callbackQuery(START_TOPUP, async (ctx) => {
    await ctx.answerCallbackQuery();
    await startTopup(ctx);
  });
  chat.callbackQuery(AFTER_ANOTHER, async (ctx) => {
    await dropButtons(ctx);
    await startTopup(ctx);
  });
  chat.callbackQuery(AFTER_DONE, async (ctx) => {
    await dropButtons(ctx);
    await ctx.reply(ctx.t("done-bye"));
  });
  chat.callbackQuery(RETRY_DATA, async (ctx) => {
    const reference = ctx.match[1] ?? "";
    const previous = await deps.journal.byReference(reference);
    if (!previous || previous.chatId !== ctx.chat.id) {
      await ctx.answerCallbackQuery(ctx.t("menu-expired"));
      return;
    }
    await dropButtons(ctx);
    await startTopup(ctx, previous.connectionId);
  });
  return entry;
}
