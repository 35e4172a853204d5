import type { BotError } from "grammy";
import type { Log } from "../../domain/ports.js";
import type { BotContext } from "../context.js";
import { localeFromTelegram, localeOf, type Translator } from "./i18n.js";

export interface ErrorBoundaryOptions {
  i18n: Translator;
  log: Log;
  isSupportGroup(chatId: number): boolean;
  /** True when the failure is the store being unreachable (said once elsewhere). */
  isStoreFailure(error: unknown): boolean;
}

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
 * answered with a short apology instead of silence; while the store is down, with "nothing
 * was charged, try again" and a log line without a stack per update. A buyer whose payment
 * confirmation failed has paid: they hear that it is being processed, never "nothing was
 * charged". Groups other than the support groups never hear from the bot.
 */
export function errorBoundary(options: ErrorBoundaryOptions) {
  return async ({ error, ctx }: BotError<BotContext>): Promise<void> => {
    const where = { updateId: ctx.update.update_id, chatId: ctx.chat?.id, userId: ctx.from?.id };
    const paid = ctx.message?.successful_payment !== undefined;
    const storeDown = !paid && options.isStoreFailure(error);
    if (storeDown) options.log.debug(where, "update not handled: the store is unreachable");
    else options.log.error({ ...where, err: error }, "update failed");
    const t = (key: string) => options.i18n.t(safeLocale(ctx), key);
    const apology = paid ? "payment-processing" : storeDown ? "store-unavailable" : "error-generic";
    try {
      if (ctx.callbackQuery) {
        await ctx.answerCallbackQuery({ text: t(apology), show_alert: storeDown });
      } else if (ctx.chat?.type === "private") {
        await ctx.reply(t(apology));
      } else if (ctx.chat && ctx.msg && options.isSupportGroup(ctx.chat.id)) {
        await ctx.reply(t(storeDown ? "store-unavailable" : "support-error"), {
          reply_parameters: { message_id: ctx.msg.message_id, allow_sending_without_reply: true },
        });
      }
    } catch {
      // Telegram itself is failing; the log above is all we can do.
    }
  };
}
