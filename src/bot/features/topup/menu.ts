// Steps 3 to 5 as plain callback handlers over the journey in the session: browsing bouquets
// by period and page, the confirm screen, and Confirm. Each tap edits the same message.
import { Composer, GrammyError, type InlineKeyboard } from "grammy";
import type { PurchaseIntent } from "../../../domain/topup.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../i18n.js";
import { decodeMenu } from "./callback-data.js";
import { checkoutOf, FLOW_VERSION, type Journey } from "./journey.js";
import type { PurchaseRunner } from "./purchase.js";
import { confirmView, listView, overviewView, type Translate } from "./views.js";

const HTML = { parse_mode: "HTML" } as const;

/** Editing a message into what it already shows is not an error for us. */
export async function editQuietly(
  ctx: BotContext,
  text: string,
  keyboard?: InlineKeyboard,
): Promise<void> {
  try {
    await ctx.editMessageText(text, { ...HTML, reply_markup: keyboard });
  } catch (error) {
    if (error instanceof GrammyError && error.description.includes("message is not modified")) {
      return;
    }
    throw error;
  }
}

export function createMenu(deps: BotDeps, purchases: PurchaseRunner): Composer<BotContext> {
  const menu = new Composer<BotContext>();

  menu.callbackQuery(/^t:/, async (ctx) => {
    const callback = decodeMenu(ctx.callbackQuery.data);
    const journey = ctx.session.journey;
    const t: Translate = (key, variables) => ctx.t(key, variables);
    const valid =
      callback !== null &&
      journey?.v === FLOW_VERSION &&
      journey.id === callback.journeyId &&
      ctx.callbackQuery.message?.message_id === journey.menuMessageId;
    if (!valid || !journey) {
      await ctx.answerCallbackQuery(t("menu-expired"));
      return;
    }
    const now = deps.now();
    if (now - journey.updatedAt > deps.config.sessionIdleMs) {
      ctx.session.journey = undefined;
      await ctx.answerCallbackQuery(t("menu-expired"));
      await editQuietly(ctx, t("session-expired"));
      return;
    }
    journey.updatedAt = now;
    const fmt = deps.formatter(localeOf(ctx));
    const action = callback.action;

    switch (action.op) {
      case "noop":
        await ctx.answerCallbackQuery();
        return;
      case "cancel":
        ctx.session.journey = undefined;
        await ctx.answerCallbackQuery();
        await editQuietly(ctx, t("cancelled"));
        return;
      case "overview": {
        journey.selected = undefined;
        journey.view = action;
        const view = overviewView(journey, t, fmt, now);
        await ctx.answerCallbackQuery();
        await editQuietly(ctx, view.text, view.keyboard);
        return;
      }
      case "list": {
        journey.selected = undefined;
        journey.view = action;
        const view = listView(journey, action.filter, action.page, t, fmt);
        await ctx.answerCallbackQuery();
        await editQuietly(ctx, view.text, view.keyboard);
        return;
      }
      case "pick": {
        if (!journey.bouquets[action.bouquet]) {
          await ctx.answerCallbackQuery(t("menu-expired"));
          return;
        }
        const back = journey.view ?? { op: "overview" };
        journey.selected = {
          bouquet: action.bouquet,
          intentId: `${journey.id}-${action.bouquet}`,
          back,
        };
        const view = confirmView(journey, action.bouquet, back, t, fmt);
        await ctx.answerCallbackQuery();
        await editQuietly(ctx, view.text, view.keyboard);
        return;
      }
      case "confirm":
        await confirm(ctx, journey, t);
        return;
    }
  });

  /** Pay: answer at once, start the purchase, then take the buttons away. */
  async function confirm(ctx: BotContext, journey: Journey, t: Translate): Promise<void> {
    const selected = journey.selected;
    const bouquet = selected ? journey.bouquets[selected.bouquet] : undefined;
    if (!selected || !bouquet || !ctx.chat || !ctx.from) {
      await ctx.answerCallbackQuery(t("menu-expired"));
      return;
    }
    await ctx.answerCallbackQuery(t("processing"));
    const intent: PurchaseIntent = {
      intentId: selected.intentId,
      userId: ctx.from.id,
      chatId: ctx.chat.id,
      language: localeOf(ctx),
      customer: journey.customer,
      connection: journey.connection,
      bouquet,
      checkout: checkoutOf(journey),
    };
    purchases.start(intent);
    ctx.session.journey = undefined;
    const fmt = deps.formatter(intent.language);
    const summary = confirmView(journey, selected.bouquet, selected.back, t, fmt);
    await editQuietly(ctx, `${summary.text}\n\n<i>${t("processing-message")}</i>`);
  }

  return menu;
}
