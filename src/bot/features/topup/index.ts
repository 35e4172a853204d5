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
  sharedContact,
} from "./identify.js";
import { createMenu, type Remind } from "./menu.js";
import type { PurchaseRunner } from "./purchase.js";
import { forgetNumber } from "./shared-number.js";
import { savedView } from "./views.js";

/**
 * A code given with /topup, by a button or a shared contact: typed, as far as what it shows
 * goes, unless `proved` (the buyer's own contact; a saved connection, or a retry, of a customer
 * the buyer proved theirs). None: the flow asks whose package.
 */
async function startTopup(
  ctx: BotContext,
  deps: BotDeps,
  given: Identified | null = null,
): Promise<void> {
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
  await ctx.conversation.enter(IDENTIFY, localeOf(ctx), given);
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

export function createTopup(
  deps: BotDeps,
  purchases: PurchaseRunner,
  remind: Remind,
  /** The Mini App's address, when there is one: its button under the saved connections. */
  shopUrl?: string,
): Topup {
  const topup = new Composer<BotContext>();
  topup.use(topupAccess(deps));
  // Installed before the commands so that it sees the updates while it waits; it passes
  // commands and foreign buttons on (see shared/flow.ts).
  topup.use(
    createConversation(createIdentify(deps, shopUrl !== undefined), {
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
    const view = savedView(saved, (key, variables) => ctx.t(key, variables), shopUrl);
    await ctx.reply(view.text, { reply_markup: view.keyboard });
  }

  /**
   * The saved connections and the shared number, with all that holds them: the flow still
   * waiting on the number ends (/language would start it again), and the draft it left goes.
   * True when a flow ended.
   */
  async function forget(ctx: BotContext): Promise<boolean> {
    const waiting = ctx.conversation.active()[IDENTIFY] !== undefined;
    if (waiting) await ctx.conversation.exit(IDENTIFY);
    await deps.drafts.take(ctx.chat?.id ?? 0, IDENTIFIED_DRAFT);
    if (ctx.from) await forgetNumber(deps, ctx.from.id);
    return waiting;
  }

  chat.command("topup", (ctx) => {
    const code = ctx.match.trim();
    return code ? startTopup(ctx, deps, { code, proved: false }) : askWhom(ctx);
  });
  chat.command("forget", async (ctx) => {
    const ended = await forget(ctx);
    // The ended flow's "Share my phone number" goes with it.
    await ctx.reply(ctx.t("saved-forgotten"), {
      ...(ended && { reply_markup: { remove_keyboard: true } }),
    });
  });
  // A contact outside the flow (sent from the attachment menu, a "Share my phone number" left on
  // screen, or the shop's request for it): the buyer's own is looked up as under /topup.
  chat.on("message:contact", async (ctx) => {
    const shared = sharedContact(ctx);
    if (shared === "not-own" || !shared) {
      await ctx.reply(ctx.t("contact-not-own"));
      return;
    }
    await startTopup(ctx, deps, shared);
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
        // Straight to that connection: its id is a code the provider finds it by; one saved
        // from the buyer's own contact is still theirs.
        return startTopup(ctx, deps, { code: entry.connectionId, proved: entry.proved === true });
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
          ...(purchase.proved && { proved: true as const }),
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
        return startTopup(ctx, deps, {
          code: previous.connection.id,
          proved: previous.proved === true,
        });
      }
    }
    // A connection choice outside its conversation, forged or old data.
    await ctx.answerCallbackQuery(ctx.t("menu-expired"));
  });
  return { composer: topup, showCurrentScreen: (ctx) => showCurrentScreen(ctx, deps, menu) };
}
