// The subscriber's top-up: /topup [code] and the buttons that lead into it, the identify
// conversation (steps 1-2), the menu (steps 3-5), and the buttons under an outcome.
import { createConversation } from "@grammyjs/conversations";
import { Composer } from "grammy";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { entryButtons } from "../../shared/callback-data.js";
import { localeOf } from "../../shared/i18n.js";
import { topupAccess } from "./access.js";
import { topupButtons } from "./callback-data.js";
import {
  createIdentify,
  IDENTIFIED_DRAFT,
  IDENTIFY,
  type Identified,
  identifiedOf,
} from "./identify.js";
import { createMenu, type Remind } from "./menu.js";
import type { PurchaseRunner } from "./purchase.js";
import { savedView } from "./views.js";

/** A code given with /topup or by a button: typed, as far as what it shows goes. */
async function startTopup(ctx: BotContext, deps: BotDeps, code?: string): Promise<void> {
  await ctx.conversation.exitAll();
  // A new flow has found nobody yet (see showCurrentScreen).
  await deps.drafts.take(ctx.chat?.id ?? 0, IDENTIFIED_DRAFT);
  // The menu of a journey left behind keeps no buttons that would lead nowhere.
  const left = ctx.session.journey?.menuMessageId;
  if (left !== undefined && ctx.chat) {
    await ctx.api
      .editMessageReplyMarkup(ctx.chat.id, left, { reply_markup: undefined })
      .catch(() => undefined);
  }
  ctx.session.journey = undefined;
  const typed: Identified | null = code === undefined ? null : { code, ownContact: false };
  await ctx.conversation.enter(IDENTIFY, localeOf(ctx), typed);
}

/**
 * After /language: the journey's screen drawn again; in the identify flow, the flow again from
 * the customer it found (or from the question), in the new language.
 */
async function showCurrentScreen(
  ctx: BotContext,
  deps: BotDeps,
  menu: { showAgain(ctx: BotContext): Promise<void> },
) {
  if (ctx.conversation.active()[IDENTIFY]) {
    // From the customer already found (looked up again), or from the question.
    const found = await deps.drafts.take(ctx.chat?.id ?? 0, IDENTIFIED_DRAFT);
    await ctx.conversation.exitAll();
    await ctx.conversation.enter(IDENTIFY, localeOf(ctx), identifiedOf(found));
    return;
  }
  await menu.showAgain(ctx);
}

/** The buttons of a finished outcome go away once one is tapped. */
async function dropButtons(ctx: BotContext): Promise<void> {
  await ctx.answerCallbackQuery();
  await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
}

export interface Topup {
  composer: Composer<BotContext>;
  /** Draws the journey's current screen again, in the chat's language as it is now. */
  showCurrentScreen(ctx: BotContext): Promise<void>;
}

export function createTopup(deps: BotDeps, purchases: PurchaseRunner, remind: Remind): Topup {
  const topup = new Composer<BotContext>();
  topup.use(topupAccess(deps));
  // Installed before the commands so that it sees the updates while it waits; it passes
  // commands and foreign buttons on (see shared/flow.ts).
  topup.use(
    createConversation(createIdentify(deps), {
      id: IDENTIFY,
      maxMillisecondsToWait: deps.config.sessionIdleMs,
    }),
  );
  const menu = createMenu(deps, purchases, remind);
  const chat = topup.chatType("private");

  /** Asks whose package, and offers the connections this user topped up before. */
  async function askWhom(ctx: BotContext): Promise<void> {
    await startTopup(ctx, deps);
    const saved = ctx.from ? await deps.savedConnections.list(ctx.from.id) : [];
    if (saved.length === 0) return;
    const view = savedView(saved, (key, variables) => ctx.t(key, variables));
    await ctx.reply(view.text, { reply_markup: view.keyboard });
  }

  async function forget(ctx: BotContext): Promise<void> {
    if (ctx.from) await deps.savedConnections.forget(ctx.from.id);
  }

  chat.command("topup", (ctx) => {
    const code = ctx.match.trim();
    return code ? startTopup(ctx, deps, code) : askWhom(ctx);
  });
  chat.command("forget", async (ctx) => {
    await forget(ctx);
    await ctx.reply(ctx.t("saved-forgotten"));
  });
  chat.callbackQuery(entryButtons.filter, async (ctx) => {
    await ctx.answerCallbackQuery();
    await askWhom(ctx);
  });
  chat.callbackQuery(topupButtons.filter, async (ctx) => {
    const button = topupButtons.decode(ctx.callbackQuery.data);
    switch (button?.kind) {
      case "menu":
        return menu.handle(ctx, button.journeyId, button.action);
      case "another":
        await dropButtons(ctx);
        return askWhom(ctx);
      case "saved": {
        const saved = await deps.savedConnections.list(ctx.from.id);
        const entry = saved[button.index];
        if (!entry) break;
        await dropButtons(ctx);
        // Straight to that connection: its id is a code the provider finds it by.
        return startTopup(ctx, deps, entry.connectionId);
      }
      case "someone-else":
        await ctx.answerCallbackQuery(ctx.t("saved-someone-else-hint"));
        await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
        return;
      case "remind-receipt": {
        const purchase = await deps.purchases.byReference(button.reference);
        const end = purchase?.renewedUntil?.at;
        if (purchase?.buyer !== ctx.from.id || end == null) break;
        const answer = await remind(ctx, {
          cuid: purchase.customer.cuid,
          connection: purchase.connection,
          bouquet: { code: purchase.bouquet.code, name: purchase.bouquet.name },
          end,
        });
        await ctx.answerCallbackQuery({ text: answer, show_alert: true });
        return;
      }
      case "renew-reminder": {
        const reminder = await deps.reminders.sent(button.id);
        if (reminder?.user !== ctx.from.id) break;
        await ctx.answerCallbackQuery();
        await ctx.conversation.exitAll();
        return menu.renewFromReminder(ctx, reminder);
      }
      case "forget":
        await forget(ctx);
        await ctx.answerCallbackQuery();
        await ctx.editMessageText(ctx.t("saved-forgotten")).catch(() => undefined);
        return;
      case "done":
        await dropButtons(ctx);
        await ctx.reply(ctx.t("done-bye"));
        return;
      case "retry": {
        const previous = await deps.purchases.byReference(button.reference);
        if (previous?.buyer !== ctx.from.id) break;
        await dropButtons(ctx);
        return startTopup(ctx, deps, previous.connection.id);
      }
    }
    // A connection choice outside its conversation, forged or old data.
    await ctx.answerCallbackQuery(ctx.t("menu-expired"));
  });
  return { composer: topup, showCurrentScreen: (ctx) => showCurrentScreen(ctx, deps, menu) };
}
