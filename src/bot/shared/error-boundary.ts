import type { I18n } from "@grammyjs/i18n";
import type { BotError } from "grammy";
import type { Log } from "../../domain/ports.js";
import type { BotContext } from "../context.js";
import { localeFromTelegram, localeOf } from "./i18n.js";

/** The chat's language, even when the failure was reading the session. */
function safeLocale(ctx: BotContext): string {
  try {
    return localeOf(ctx);
  } catch {
    return localeFromTelegram(ctx.from?.language_code);
  }
}

/**
 * The one error boundary: whatever failed in an update is logged (without personal data) and
 * answered with a short apology instead of silence. Groups other than the support groups
 * never hear from the bot.
 */
export function errorBoundary(
  i18n: I18n<BotContext>,
  log: Log,
  isSupportGroup: (chatId: number) => boolean,
) {
  return async ({ error, ctx }: BotError<BotContext>): Promise<void> => {
    log.error(
      { err: error, updateId: ctx.update.update_id, chatId: ctx.chat?.id, userId: ctx.from?.id },
      "update failed",
    );
    const t = (key: string) => i18n.t(safeLocale(ctx), key);
    try {
      if (ctx.callbackQuery) {
        await ctx.answerCallbackQuery(t("error-generic"));
      } else if (ctx.chat?.type === "private") {
        await ctx.reply(t("error-generic"));
      } else if (ctx.chat && ctx.msg && isSupportGroup(ctx.chat.id)) {
        await ctx.reply(t("support-error"), {
          reply_parameters: { message_id: ctx.msg.message_id, allow_sending_without_reply: true },
        });
      }
    } catch {
      // Telegram itself is failing; the log above is all we can do.
    }
  };
}
