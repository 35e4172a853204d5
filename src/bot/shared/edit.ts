import { GrammyError, type InlineKeyboard } from "grammy";
import type { BotContext } from "../context.js";

/** Edits the message a button sits under; editing it into what it already shows is no error. */
export async function editQuietly(
  ctx: BotContext,
  text: string,
  keyboard?: InlineKeyboard,
): Promise<void> {
  try {
    await ctx.editMessageText(text, { reply_markup: keyboard });
  } catch (error) {
    if (error instanceof GrammyError && error.description.includes("message is not modified")) {
      return;
    }
    throw error;
  }
}
