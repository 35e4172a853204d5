// Steps 3 to 5 as plain callback handlers over the journey in the session: browsing bouquets
// by period and page, the confirm screen, and Confirm. Each tap edits the same message.
import type { InlineKeyboard } from "grammy";
import type { BouquetFilter } from "../../../domain/catalogue.js";
import type { Bouquet } from "../../../domain/model.js";
import type { PaymentMethod } from "../../../domain/purchase.js";
import type { Reminder } from "../../../domain/reminders.js";
import type { PurchaseIntent } from "../../../domain/topup.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { FLOW_VERSION, type MenuAction } from "../../session.js";
import { startTopupKeyboard } from "../../shared/callback-data.js";
import { editQuietly } from "../../shared/edit.js";
import { newFlowId } from "../../shared/flow.js";
import { localeOf } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { confirmScreen } from "./confirm-screen.js";
import {
  checkoutOf,
  type Journey,
  journeyFromOffer,
  type Listing,
  listingOf,
  placeOf,
} from "./journey.js";
import type { PurchaseRunner } from "./purchase.js";
import { confirmView, listView, otherMethodsKeyboard, overviewView, type View } from "./views.js";

/**
 * Sets reminders for one subscription of the tapping user; returns what to tell them (the
 * reminders feature's, handed in by bot.ts).
 */
export type Remind = (
  ctx: BotContext,
  what: Pick<Reminder, "cuid" | "connection" | "bouquet" | "end" | "proved">,
) => Promise<string>;

export function createMenu(deps: BotDeps, purchases: PurchaseRunner, remind: Remind) {
  /**
   * Subscribers pay in the bot: Confirm says what it costs and sends the invoice, or one button
   * per method offered (in the configured order) sends that method's.
   */
  const methods = deps.payments?.methods ?? [];
  const paid = { methods };
  /**
   * The journey a button belongs to: the session's place with its listing, or one a background
   * purchase offered as a draft (taken into the session now, inside the chat's own update).
   */
  async function journeyOf(ctx: BotContext, journeyId: string): Promise<Journey | undefined> {
    const messageId = ctx.callbackQuery?.message?.message_id;
    const place = ctx.session.journey;
    if (place?.id === journeyId) {
      if (place.v !== FLOW_VERSION || place.menuMessageId !== messageId) return undefined;
      const listing = (await deps.listings.get(journeyId)) as Listing | null;
      return listing ? { ...place, ...listing } : undefined;
    }
    const draft = (await deps.drafts.take(ctx.chat?.id ?? 0, journeyId)) as Journey | null;
    if (draft?.v !== FLOW_VERSION || draft.id !== journeyId) return undefined;
    await deps.listings.put(journeyId, listingOf(draft));
    return { ...draft, menuMessageId: messageId };
  }

  /**
   * A list page is drawn from the listing, the filter, the page and the language alone (`t`
   * and `fmt` speak the update's), and a
   * listing never changes: each page is drawn once, then shown again from here (Next and Prev
   * mostly go back to a page seen). Kept while the listing is (its bouquets stand for it).
   */
  const drawnPages = new WeakMap<Bouquet[], Map<string, View>>();
  function listPage(
    journey: Journey,
    filter: BouquetFilter,
    page: number,
    t: Translate,
    fmt: ValueFormatter,
  ): View {
    const drawn = drawnPages.get(journey.bouquets) ?? new Map<string, View>();
    drawnPages.set(journey.bouquets, drawn);
    const key = `${fmt.locale}:${filter}:${page}`;
    const view = drawn.get(key) ?? listView(journey, filter, page, t, fmt);
    drawn.set(key, view);
    return view;
  }

  /**
   * A tap on a menu that leads nowhere any more (the chat moved on, or its purchase was paid or
   * ended): "This menu has expired", and its buttons give way to one that starts a new top-up.
   */
  async function startAgain(ctx: BotContext, t: Translate): Promise<void> {
    await ctx.answerCallbackQuery(t("menu-expired"));
    await ctx
      .editMessageReplyMarkup({ reply_markup: startTopupKeyboard(t("button-start-again")) })
      .catch(() => undefined);
  }

  /** The tap's answer and the new screen go out together: the screen shows sooner. */
  async function showing(ctx: BotContext, view: { text: string; keyboard: InlineKeyboard }) {
    await Promise.all([ctx.answerCallbackQuery(), editQuietly(ctx, view.text, view.keyboard)]);
  }

  /**
   * The journey's screen as it is now, drawn again in the chat's current language (after
   * /language): the same message, the same place, so the flow goes on from there.
   */
  async function showAgain(ctx: BotContext): Promise<void> {
    const place = ctx.session.journey;
    const chatId = ctx.chat?.id;
    if (place?.v !== FLOW_VERSION || place.menuMessageId === undefined || chatId === undefined) {
      return;
    }
    const listing = (await deps.listings.get(place.id)) as Listing | null;
    if (!listing) return;
    const journey: Journey = { ...place, ...listing };
    const t: Translate = (key, variables) => ctx.t(key, variables);
    const fmt = deps.formatter(localeOf(ctx));
    const { selected, view: shown } = journey;
    const view = selected
      ? confirmView(journey, selected.bouquet, selected.back, t, fmt, paid)
      : shown?.op === "list"
        ? listView(journey, shown.filter, shown.page, t, fmt)
        : overviewView(journey, t, fmt, deps.now());
    await ctx.api
      .editMessageText(chatId, place.menuMessageId, view.text, { reply_markup: view.keyboard })
      .catch((error: unknown) => deps.logger.debug({ err: error }, "could not redraw the menu"));
  }

  /** A reminder's Renew: a fresh listing, straight to the confirm screen of that bouquet. */
  async function renewFromReminder(ctx: BotContext, reminder: Reminder): Promise<void> {
    const t: Translate = (key, variables) => ctx.t(key, variables);
    const offer = await deps.provider.getPackages(reminder.cuid, reminder.connection);
    const now = deps.now();
    // As the customer was found when the reminder was set: in full only when proved theirs.
    const listed = journeyFromOffer(newFlowId(), offer, now, reminder.proved !== true);
    const journey: Journey = { ...listed, fromReminder: true };
    const index = journey.bouquets.findIndex((b) => b.code === reminder.bouquet.code);
    const fmt = deps.formatter(localeOf(ctx));
    const view =
      index >= 0
        ? confirmScreen(journey, index, { op: "overview" }, t, fmt, paid)
        : overviewView(journey, t, fmt, now);
    const sent = await ctx.reply(view.text, { reply_markup: view.keyboard });
    journey.menuMessageId = sent.message_id;
    await deps.listings.put(journey.id, listingOf(journey));
    ctx.session.journey = placeOf(journey);
  }

  /** Handles a tap on a journey's menu. */
  async function handle(ctx: BotContext, journeyId: string, action: MenuAction): Promise<void> {
    const t: Translate = (key, variables) => ctx.t(key, variables);
    const journey = await journeyOf(ctx, journeyId);
    // A menu the chat moved on from: its buttons give way to a fresh start.
    if (!journey) return startAgain(ctx, t);
    // The session keeps the place; what the tap changes in it is written back.
    ctx.session.journey = placeOf(journey);
    try {
      await act(ctx, journey, action, t);
    } finally {
      if (ctx.session.journey?.id === journey.id) ctx.session.journey = placeOf(journey);
    }
  }

  async function act(ctx: BotContext, journey: Journey, action: MenuAction, t: Translate) {
    const now = deps.now();
    if (now - journey.updatedAt > deps.config.sessionIdleMs) {
      ctx.session.journey = undefined;
      await ctx.answerCallbackQuery(t("menu-expired"));
      await editQuietly(ctx, t("session-expired"), startTopupKeyboard(t("button-start-again")));
      return;
    }
    journey.updatedAt = now;
    const fmt = deps.formatter(localeOf(ctx));

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
        await showing(ctx, view);
        return;
      }
      case "list": {
        journey.selected = undefined;
        journey.view = action;
        await showing(ctx, listPage(journey, action.filter, action.page, t, fmt));
        return;
      }
      case "remind": {
        // Masked, no button offers it: a reminder's dates would tell the end date.
        const subscription = journey.masked
          ? undefined
          : journey.subscriptions[action.subscription];
        const end = subscription?.end?.at;
        if (!subscription || end == null) {
          await ctx.answerCallbackQuery(t("reminder-no-date"));
          return;
        }
        // Only a journey in full offers it: the customer is the buyer's own.
        const answer = await remind(ctx, {
          cuid: journey.customer.cuid,
          connection: { service: journey.connection.service, id: journey.connection.id },
          bouquet: { code: subscription.code, name: subscription.name },
          end,
          proved: true,
        });
        await ctx.answerCallbackQuery({ text: answer, show_alert: true });
        return;
      }
      case "pick": {
        if (!journey.bouquets[action.bouquet]) {
          await ctx.answerCallbackQuery(t("menu-expired"));
          return;
        }
        const back = journey.view ?? { op: "overview" };
        await showing(ctx, confirmScreen(journey, action.bouquet, back, t, fmt, paid));
        return;
      }
      case "confirm":
        await confirm(ctx, journey, t, action.method);
        return;
    }
  }

  /**
   * Pay: answer at once, start the purchase, then take the buttons away; where several methods
   * are offered, the others stay, and choosing one replaces the offer (the journey is kept)
   * until the purchase is paid or ends (the payment service then takes them away: the purchase
   * knows this menu). A tap that still comes for it starts nothing: "This menu has expired".
   */
  async function confirm(
    ctx: BotContext,
    journey: Journey,
    t: Translate,
    method?: PaymentMethod,
  ): Promise<void> {
    const selected = journey.selected;
    const bouquet = selected ? journey.bouquets[selected.bouquet] : undefined;
    if (!selected || !bouquet || !ctx.from) {
      await ctx.answerCallbackQuery(t("menu-expired"));
      return;
    }
    // Its purchase paid or ended (a button the chat had not dropped yet): no offer, no payment.
    if ((await deps.payments?.stateOf(selected.intentId, ctx.from.id)) === "closed") {
      ctx.session.journey = undefined;
      return startAgain(ctx, t);
    }
    if (!(await deps.balanceAllows(bouquet.price))) {
      await ctx.answerCallbackQuery();
      ctx.session.journey = undefined;
      await editQuietly(ctx, t("purchase-balance-stop"));
      return;
    }
    await ctx.answerCallbackQuery(t("processing"));
    const intent: PurchaseIntent = {
      intentId: selected.intentId,
      buyer: ctx.from.id,
      language: localeOf(ctx),
      customer: journey.customer,
      connection: journey.connection,
      bouquet,
      checkout: checkoutOf(journey),
      ...(ctx.callbackQuery?.message && {
        statusMessage: String(ctx.callbackQuery.message.message_id),
        // This very menu keeps the other methods' buttons: closed with the purchase.
        ...(methods.length > 1 && { menuMessage: String(ctx.callbackQuery.message.message_id) }),
      }),
      ...(journey.fromReminder && { fromReminder: true as const }),
      ...(!journey.masked && { proved: true as const }),
    };
    const fmt = deps.formatter(intent.language);
    const summary = confirmView(journey, selected.bouquet, selected.back, t, fmt, paid);
    if (deps.payments) {
      // The invoice below the summary is what the buyer taps next; the top-up waits for it.
      const opened = await deps.payments.open(intent, method);
      if (opened.kind === "duplicate") return;
      if (opened.kind === "closed") {
        // Paid or ended meanwhile: its menu leads nowhere any more.
        ctx.session.journey = undefined;
        await ctx
          .editMessageReplyMarkup({ reply_markup: startTopupKeyboard(t("button-start-again")) })
          .catch(() => undefined);
        return;
      }
      const chosen = opened.kind === "offered" ? opened.purchase.payment?.method : undefined;
      // What to pay with, named: the invoice, the Khalti link, the eSewa link.
      const said =
        chosen === undefined ? t(`payment-${opened.kind}`) : t("invoice-sent", { method: chosen });
      const others = methods.filter((other) => other !== chosen);
      if (chosen === undefined || methods.length < 2) {
        ctx.session.journey = undefined;
        await editQuietly(ctx, `${summary.text}\n\n<i>${said}</i>`);
        return;
      }
      await editQuietly(
        ctx,
        `${summary.text}\n\n<i>${said}</i>`,
        otherMethodsKeyboard(journey, others, t),
      );
      return;
    }
    purchases.start(intent);
    ctx.session.journey = undefined;
    await editQuietly(ctx, `${summary.text}\n\n<i>${t("processing-topup")}</i>`);
  }

  return { handle, showAgain, renewFromReminder };
}
