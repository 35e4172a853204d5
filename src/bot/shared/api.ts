import { autoRetry } from "@grammyjs/auto-retry";
import type { Api } from "grammy";
import { withinTelegramLimits } from "./limits.js";
import { htmlParseMode } from "./parse-mode.js";
import type { TelegramReachability } from "./reachability.js";

/**
 * The transformers every Api object of the bot gets: bot.api, the conversations' own (they
 * lack bot.api's), and those used outside updates. Telegram's 429 and 5xx are retried a
 * bounded number of times unless `retryAttempts` is undefined (the broadcast sender paces
 * itself); a network error is retried until it gets through, and `reachability` says so.
 */
export function configureApi(
  api: Api,
  reachability: TelegramReachability,
  retryAttempts?: number,
): Api {
  // The last installed runs first: this one, installed first, sees each of auto-retry's attempts.
  api.config.use(reachability.transformer);
  if (retryAttempts !== undefined) {
    api.config.use(
      autoRetry({
        maxRetryAttempts: retryAttempts,
        maxDelaySeconds: 60,
        rethrowInternalServerErrors: false,
      }),
    );
  }
  // The parse mode is set before the limits are checked.
  api.config.use(withinTelegramLimits, htmlParseMode);
  return api;
}
