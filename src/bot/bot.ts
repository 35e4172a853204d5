import { autoRetry } from "@grammyjs/auto-retry";
import type { VersionedState } from "@grammyjs/conversations";
import { type ConversationData, conversations, createConversation } from "@grammyjs/conversations";
import { sequentialize } from "@grammyjs/runner";
import { Bot, type Context, session } from "grammy";
import { errorFields } from "../logger.js";
import type { BotContext, FlowContext } from "./context.js";
import type { BotDeps } from "./deps.js";
import {
  BROADCAST,
  createBroadcastConversation,
  type Preview,
} from "./features/broadcast/conversation.js";
import { createBroadcastCommands } from "./features/broadcast/index.js";
import { createRegistry } from "./features/broadcast/registry.js";
import { cancel } from "./features/cancel.js";
import { fallback } from "./features/fallback.js";
import { language } from "./features/language.js";
import { createSupport } from "./features/support/index.js";
import { createTopupEntry } from "./features/topup/entry.js";
import { createIdentify, IDENTIFY } from "./features/topup/identify.js";
import { FLOW_VERSION } from "./features/topup/journey.js";
import { createMenu } from "./features/topup/menu.js";
import { PurchaseRunner } from "./features/topup/purchase.js";
import { welcome } from "./features/welcome.js";
import { dropDuplicateUpdates } from "./middleware/dedupe.js";
import { OutcomeMessenger } from "./outcome-messenger.js";

export interface TelegramOptions {
  token: string;
  apiRoot: string;
  retryAttempts: number;
}

export interface BotParts {
  bot: Bot<BotContext>;
  purchases: PurchaseRunner;
  messenger: OutcomeMessenger;
}

/** Telegram's 429 and 5xx are retried, a bounded number of times. */
const retries = (attempts: number) =>
  autoRetry({
    maxRetryAttempts: attempts,
    maxDelaySeconds: 60,
    rethrowInternalServerErrors: false,
  });

type StoredFlow = VersionedState<ConversationData>;

export function createBot(telegram: TelegramOptions, deps: BotDeps, preview: Preview): BotParts {
  const bot = new Bot<BotContext>(telegram.token, { client: { apiRoot: telegram.apiRoot } });
  bot.api.config.use(retries(telegram.retryAttempts));
  const messenger = new OutcomeMessenger(bot.api, deps.i18n, deps.formatter);
  const purchases = new PurchaseRunner(deps, deps.topups, messenger, bot.api, deps.logger);

  // One user's updates in order; different users in parallel.
  bot.use(sequentialize((ctx: Context) => ctx.chat?.id.toString()));
  bot.use(async (ctx, next) => {
    const stopTimer = deps.metrics.updateSeconds.startTimer({
      kind: ctx.callbackQuery ? "callback_query" : ctx.message ? "message" : "other",
    });
    try {
      await next();
    } finally {
      stopTimer();
    }
  });
  bot.use(dropDuplicateUpdates(deps.redis, deps.keys, deps.logger));
  bot.use(
    session({
      initial: () => ({}),
      storage: deps.sessions,
      getSessionKey: (ctx) => ctx.chat?.id.toString(),
    }),
  );
  bot.use(deps.i18n);
  bot.use(createRegistry(deps));
  bot.use(
    conversations<BotContext, FlowContext>({
      storage: {
        type: "context",
        version: FLOW_VERSION,
        adapter: {
          read: (ctx) => {
            if (!ctx.chat) return undefined;
            const stored = ctx.session.conversation as StoredFlow | undefined;
            if (stored && stored.version[1] !== FLOW_VERSION) {
              // A deploy changed the flow under this user: tell them instead of failing.
              ctx.flowExpired = true;
              ctx.session.conversation = undefined;
              return undefined;
            }
            return stored;
          },
          write: (ctx, state) => {
            if (ctx.chat) ctx.session.conversation = state;
          },
          delete: (ctx) => {
            if (ctx.chat) ctx.session.conversation = undefined;
          },
        },
      },
      // Called when a wait timed out (idle expiry) and on /cancel or /topup.
      onExit: (_id, ctx) => {
        ctx.flowExpired = true;
      },
      // Conversations build their own Api objects, without bot.api's transformers.
      plugins: [
        async (ctx, next) => {
          ctx.api.config.use(retries(telegram.retryAttempts));
          await next();
        },
      ],
    }),
  );
  // Installed before the commands so that they can enter it; the conversation passes commands
  // and foreign buttons on to them (see identify.ts).
  bot.use(
    createConversation(createIdentify(deps), {
      id: IDENTIFY,
      maxMillisecondsToWait: deps.config.sessionIdleMs,
    }),
  );
  bot.use(
    createConversation(createBroadcastConversation(deps, preview), {
      id: BROADCAST,
      maxMillisecondsToWait: deps.config.sessionIdleMs,
    }),
  );
  bot.use(welcome, language, cancel, createTopupEntry(deps), createBroadcastCommands(deps));
  bot.use(createMenu(deps, purchases));
  bot.use(createSupport(deps));
  bot.use(fallback);

  bot.catch(async ({ error, ctx }) => {
    deps.logger.error({ ...errorFields(error), updateId: ctx.update.update_id }, "update failed");
    try {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery(ctx.t("error-generic"));
      else if (ctx.chat?.type === "private") await ctx.reply(ctx.t("error-generic"));
    } catch {
      // Telegram itself is failing; the log above is all we can do.
    }
  });
  return { bot, purchases, messenger };
}
