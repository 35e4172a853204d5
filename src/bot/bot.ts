import { Bot } from "grammy";
import type { Logger } from "../logger.js";
import type { BotContext } from "./context.js";
import { welcome } from "./features/welcome.js";
import { createI18n } from "./i18n.js";

export interface BotOptions {
  token: string;
  apiRoot: string;
  logger: Logger;
}

export function createBot({ token, apiRoot, logger }: BotOptions): Bot<BotContext> {
  const bot = new Bot<BotContext>(token, { client: { apiRoot } });
  bot.use(createI18n());
  bot.use(welcome);
  bot.catch(({ error, ctx }) => {
    logger.error({ err: error, updateId: ctx.update.update_id }, "update failed");
  });
  return bot;
}
