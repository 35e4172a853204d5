// The bot: the middleware every update passes, then one Composer per feature.
import type { VersionedState } from "@grammyjs/conversations";
import { type ConversationData, conversations } from "@grammyjs/conversations";
import { limit } from "@grammyjs/ratelimiter";
import { sequentialize } from "@grammyjs/runner";
import { type ApiClientOptions, Bot, BotError, type Context } from "grammy";
import type { Update } from "grammy/types";
import { ConfirmationNotKept } from "../domain/payment-service.js";
import { TaskGroup } from "../domain/task-group.js";
import { CommandMenus } from "./commands.js";
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
import { createStart } from "./features/start/index.js";
import { createSupport } from "./features/support/index.js";
import { appPageBuilt } from "./features/topup/app-page.js";
import { createTopup } from "./features/topup/index.js";
import type { TelegramOutcomes } from "./features/topup/outcomes.js";
import { PurchaseRunner } from "./features/topup/purchase.js";
import { FLOW_VERSION } from "./session.js";
import { configureApi } from "./shared/api.js";
import { ConfirmationHold, isPaymentConfirmation } from "./shared/confirmation-hold.js";
import { ChatUpdates, earlierUpdatesApplied } from "./shared/earlier-updates.js";
import { errorBoundary } from "./shared/error-boundary.js";
import type { TelegramReachability } from "./shared/reachability.js";
import { ownStaffCommands } from "./shared/staff.js";
import { gated } from "./shared/update-gate.js";

export interface BotParts {
  bot: Bot<BotContext>;
  purchases: PurchaseRunner;
  /** Resolves when no update is being handled: the runner's stop does not wait for them. */
  settled(): Promise<void>;
  /** Polled confirmations still kept nowhere are not tried again: they stay with Telegram. */
  stopHolding(): void;
  /** The command menus (an admin's also at their first message). */
  menus: CommandMenus;
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
export const FLOOD_WINDOW_MS = 10_000;

export function createBot(
  deps: BotDeps,
  outcomes: TelegramOutcomes,
  client: ApiClientOptions,
  reachability: TelegramReachability,
): BotParts {
  const { config } = deps;
  const bot = new Bot<BotContext>(config.botToken, { client });
  configureApi(bot.api, reachability, config.telegram.retryAttempts);
  const purchases = new PurchaseRunner(deps, outcomes);

  // Updates under way, however they came, so that a stop waits for each to write its session
  // and free its chat before Redis closes (otherwise the chat's next update waits for the
  // chat's lock to lapse).
  const underWay = new TaskGroup();
  // And by chat, so that a payment's check waits for the chat's earlier updates.
  const chats = new ChatUpdates();
  bot.use((ctx, next) => {
    const handled = next();
    underWay.track(handled);
    chats.track(ctx.chat?.id, ctx.update.update_id, handled);
    return handled;
  });

  // Money first: a payment's check and confirmation pass nothing that could drop or stall them
  // (the flood limit, Redis for the gate and the session, the chat's turn, a conversation).
  // Polled, each is acknowledged to Telegram only once kept (shared/confirmation-hold.ts): one
  // kept nowhere is handled again until it is (by webhook, Telegram is answered 500 instead).
  const hold = new ConfirmationHold(deps.logger);
  hold.install(bot.api);
  const handleAgain = (update: Update) =>
    bot.handleUpdate(update).catch(async (error: unknown) => {
      // As the runner does for a polled update: the error boundary.
      if (!(error instanceof BotError)) throw error;
      await bot.errorHandler(error);
    });
  bot.use(async (ctx, next) => {
    if (!isPaymentConfirmation(ctx.update)) return next();
    try {
      await next();
    } catch (error) {
      if (error instanceof ConfirmationNotKept && hold.again(ctx.update, handleAgain)) return;
      hold.handled(ctx.update.update_id);
      throw error;
    }
    hold.handled(ctx.update.update_id);
  });
  const { payments, refunds } = deps;
  const paying = payments && refunds && config.payment;
  bot.use(
    paying
      ? paymentConfirmations(deps, payments, (chatId, updateId, withinMs) =>
          earlierUpdatesApplied(chats, deps.gate, chatId, updateId, withinMs),
        )
      : unexpectedPayments(deps),
  );

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
  // The Mini App, when there is one and its page was built: its buttons in the chat.
  const shopUrl = config.miniApp && appPageBuilt() ? config.miniApp.url : undefined;
  if (!config.miniApp) {
    deps.logger.info(
      "the Mini App is off (no PUBLIC_URL or HTTP server): subscribers use the chat",
    );
  }
  const menus = new CommandMenus(bot.api, deps.i18n, config.adminUserIds, shopUrl);
  bot.use(menus.middleware);
  // A staff command runs only from its sender's own message (never forwarded, never via a bot).
  bot.use(ownStaffCommands(deps));
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
          configureApi(ctx.api, reachability, config.telegram.retryAttempts);
          await next();
        },
      ],
    }),
  );
  const reminders = createReminders(deps);
  const topup = createTopup(deps, purchases, reminders.remind, shopUrl);
  if (paying) bot.use(createPayments(deps, payments, refunds, paying.minorDigits));
  bot.use(topup.composer);
  bot.use(createHistory(deps));
  bot.use(reminders.composer);
  bot.use(createBroadcast(deps));
  bot.use(createReport(deps));
  bot.use(createBalance(deps));
  bot.use(createReconcile(deps));
  bot.use(
    createStart(shopUrl),
    createLanguage(topup.showCurrentScreen, (ctx) => menus.labelMenuButton(ctx)),
    createCancel(deps),
  );
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
  return {
    bot,
    purchases,
    settled: () => underWay.drain(),
    stopHolding: () => hold.stop(),
    menus,
  };
}
