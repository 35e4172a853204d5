// The bot: the middleware every update passes, then one Composer per feature.
import type { VersionedState } from "@grammyjs/conversations";
import { type ConversationData, conversations } from "@grammyjs/conversations";
import { limit } from "@grammyjs/ratelimiter";
import { sequentialize } from "@grammyjs/runner";
import { Bot, type Context } from "grammy";
import { TaskGroup } from "../domain/task-group.js";
import type { BotContext, FlowContext } from "./context.js";
import type { BotDeps } from "./deps.js";
import { createBalance } from "./features/balance/index.js";
import { createBroadcast } from "./features/broadcast/index.js";
import { createRegistry } from "./features/broadcast/registry.js";
import { createCancel, isCancel, skipsQueue } from "./features/cancel/index.js";
import { fallback } from "./features/fallback/index.js";
import { createHistory } from "./features/history/index.js";
import { createLanguage } from "./features/language/index.js";
import { paymentConfirmations, unexpectedPayments } from "./features/payments/confirmations.js";
import { createPayments } from "./features/payments/index.js";
import { createReconcile } from "./features/reconcile/index.js";
import { createReminders } from "./features/reminders/index.js";
import { createReport } from "./features/report/index.js";
import { start } from "./features/start/index.js";
import { createSupport } from "./features/support/index.js";
import { createTopup } from "./features/topup/index.js";
import type { TelegramOutcomes } from "./features/topup/outcomes.js";
import { PurchaseRunner } from "./features/topup/purchase.js";
import { FLOW_VERSION } from "./session.js";
import { configureApi } from "./shared/api.js";
import { ConfirmationHold, isPaymentConfirmation } from "./shared/confirmation-hold.js";
import { errorBoundary } from "./shared/error-boundary.js";
import { gated } from "./shared/update-gate.js";

export interface BotParts {
  bot: Bot<BotContext>;
  purchases: PurchaseRunner;
  /** Resolves when no update is being handled: the runner's stop does not wait for them. */
  settled(): Promise<void>;
}

type StoredFlow = VersionedState<ConversationData>;

/** The updates the bot handles: asked for by getUpdates and setWebhook alike. */
export const ALLOWED_UPDATES = [
  "message",
  "callback_query",
  "my_chat_member",
  // Telegram Payments' last check; without it in the list no payment can be made.
  "pre_checkout_query",
] as const;

/** FLOOD_LIMIT counts a user's updates over this window. */
const FLOOD_WINDOW_MS = 10_000;

export function createBot(deps: BotDeps, outcomes: TelegramOutcomes): BotParts {
  const { config } = deps;
  const bot = new Bot<BotContext>(config.botToken, { client: { apiRoot: config.telegramApiRoot } });
  configureApi(bot.api, config.telegram.retryAttempts);
  const purchases = new PurchaseRunner(deps, outcomes);

  // Updates under way, however they came, so that a stop waits for each to write its session
  // and free its chat before Redis closes (otherwise the chat's next update waits for the
  // chat's lock to lapse).
  const underWay = new TaskGroup();
  bot.use((_ctx, next) => {
    const handled = next();
    underWay.track(handled);
    return handled;
  });

  // Money first: a payment's check and confirmation pass nothing that could drop or stall them
  // (the flood limit, Redis for the gate and the session, the chat's turn, a conversation).
  // Polled, each is acknowledged to Telegram only once handled (shared/confirmation-hold.ts).
  const hold = new ConfirmationHold();
  hold.install(bot.api);
  bot.use(async (ctx, next) => {
    if (!isPaymentConfirmation(ctx.update)) return next();
    try {
      await next();
    } finally {
      hold.handled(ctx.update.update_id);
    }
  });
  const { payments, refunds } = deps;
  const paying = payments && refunds && config.payment;
  bot.use(paying ? paymentConfirmations(deps, payments) : unexpectedPayments(deps));

  // A user flooding the bot is dropped here, in memory, before waiting for their chat's turn
  // takes room that other users' updates need. Admins are not limited.
  const admins = new Set(config.adminUserIds);
  bot.use(
    limit<BotContext, never>({
      timeFrame: FLOOD_WINDOW_MS,
      limit: config.limits.updatesPerWindow,
      keyGenerator: (ctx) =>
        ctx.from && !admins.has(ctx.from.id) ? String(ctx.from.id) : undefined,
      onLimitExceeded: (ctx) =>
        deps.logger.warn({ userId: ctx.from?.id }, "flood: a user's updates are dropped"),
    }),
  );
  // One chat's updates in order; different chats in parallel; /cancel at once.
  bot.use(
    sequentialize((ctx: Context) =>
      skipsQueue(ctx as BotContext, deps) ? undefined : ctx.chat?.id.toString(),
    ),
  );
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
  bot.use(gated(deps.gate, deps.logger, isCancel));
  bot.use(deps.i18n.middleware());
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
      plugins: [
        async (ctx, next) => {
          configureApi(ctx.api, config.telegram.retryAttempts);
          await next();
        },
      ],
    }),
  );
  const reminders = createReminders(deps);
  const topup = createTopup(deps, purchases, reminders.remind);
  if (paying) bot.use(createPayments(deps, payments, refunds, paying.minorDigits));
  bot.use(topup.composer);
  bot.use(createHistory(deps));
  bot.use(reminders.composer);
  bot.use(createBroadcast(deps));
  bot.use(createReport(deps));
  bot.use(createBalance(deps));
  bot.use(createReconcile(deps));
  bot.use(start, createLanguage(topup.showCurrentScreen), createCancel(deps));
  bot.use(createSupport(deps));
  bot.use(fallback);

  const supportGroups = new Set(config.supportChatIds);
  bot.catch(
    errorBoundary({
      i18n: deps.i18n,
      log: deps.logger,
      isSupportGroup: (chatId) => supportGroups.has(chatId),
      isStoreFailure: deps.isStoreFailure,
    }),
  );
  return { bot, purchases, settled: () => underWay.drain() };
}
