// Steps 1 and 2 of the journey as a conversation: who to top up, and which connection.
// It ends by loading the packages into the session's journey (menu.ts takes over there).
// Everything non-deterministic runs in `conversation.external`, as replays require.
import { Keyboard } from "grammy";
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import type { Connection, CustomerInfo } from "../../../domain/model.js";
import { ask, type ReadFailure } from "../../../domain/provider-answers.js";
import type { FlowContext, Locale } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { beginFlow, type FlowConversation, nextInFlow } from "../../shared/flow.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translate } from "../../shared/labels.js";
import { whileTyping } from "../../shared/typing.js";
import { topupButtons } from "./callback-data.js";
import { type Journey, journeyFromOffer, listingOf, placeOf } from "./journey.js";
import { failureKey, lookUpCustomer } from "./lookup.js";
import { keepNumber } from "./shared-number.js";
import { connectionChoice, connectionLine, customerCard, overviewView } from "./views.js";

export const IDENTIFY = "identify";
/** The draft holding how the flow found its customer (never a journey id: "-"). */
export const IDENTIFIED_DRAFT = "-identified";

/**
 * A code to look a customer up by, and whether the buyer proved the customer theirs (their own
 * shared contact, or a connection saved from one: the full view) or typed it (the masked one:
 * anyone may type anyone's code). shared/masking.ts states the rule.
 */
export interface Identified {
  code: string;
  proved: boolean;
  /** The buyer's own shared contact's number: kept for the shop once a customer is found. */
  contact?: true;
}

/** The IDENTIFIED_DRAFT as stored, if it is one (the previous release called it ownContact). */
export function identifiedOf(stored: unknown): Identified | null {
  const found = stored as (Partial<Identified> & { ownContact?: unknown }) | null;
  const proved = found?.proved ?? found?.ownContact;
  return typeof found?.code === "string" && typeof proved === "boolean"
    ? { code: found.code, proved, ...(found.contact === true && { contact: true as const }) }
    : null;
}

/**
 * A shared contact as a code: proved, when it is the sender's own (Telegram names its user) and
 * sent as such; "not-own" for anyone else's (a picked contact proves nothing), and for a card
 * forwarded or sent through a bot, even one naming the sender (an old card's number may be
 * someone else's now); undefined when the message is no contact.
 */
export function sharedContact(ctx: FlowContext): Identified | "not-own" | undefined {
  const message = ctx.message;
  const contact = message?.contact;
  if (!contact) return undefined;
  const sentAsOwn = message.forward_origin === undefined && message.via_bot === undefined;
  return sentAsOwn && contact.user_id !== undefined && contact.user_id === ctx.from?.id
    ? { code: contact.phone_number, proved: true, contact: true }
    : "not-own";
}

type Loaded = { kind: "loaded"; journey: Journey } | { kind: "failed"; failure: ReadFailure };

const isConnectionButton = (data: string) => {
  const kind = topupButtons.decode(data)?.kind;
  return kind === "connection" || kind === "connections";
};

const isContact = (update: FlowContext) => update.message?.contact !== undefined;

/** A connection by the id typed instead of tapped. */
const typedConnection = (connections: Connection[], text: string | undefined) =>
  connections.find((c) => c.id.toLowerCase() === text?.trim().toLowerCase());

/** Masked, a typed id is not matched: that would tell the ids the buttons hide, untimed. */
const typedChoice = (connections: Connection[], text: string | undefined, masked: boolean) =>
  masked ? undefined : typedConnection(connections, text);

/** `keepsPhone`: there is a shop, which lists the connections of the buyer's own number. */
export function createIdentify(deps: BotDeps, keepsPhone: boolean) {
  async function load(
    cuid: string,
    connection: Connection,
    journeyId: string,
    masked: boolean,
  ): Promise<Loaded> {
    const listed = await ask(
      () => deps.provider.getPackages(cuid, connection),
      deps.logger,
      "package listing",
    );
    return listed.ok
      ? { kind: "loaded", journey: journeyFromOffer(journeyId, listed.value, deps.now(), masked) }
      : { kind: "failed", failure: listed.failure };
  }

  /**
   * A provider call as one replayable step: "typing…" while it is slow, and "cancelled" when
   * /cancel came meanwhile (it is answered at once; the late result is dropped).
   */
  function providerStep<T>(conversation: FlowConversation, call: () => Promise<T>) {
    return conversation.external(async (outside): Promise<T | "cancelled"> => {
      const chatId = outside.chat?.id ?? 0;
      const started = deps.now();
      await deps.cancels.busy(chatId, started);
      const result = await whileTyping(outside.api, chatId, call);
      if (await deps.cancels.since(chatId, started)) return "cancelled";
      await deps.cancels.idle(chatId);
      return result;
    });
  }

  /** Reads a code from a text or the sender's own shared contact; hints at anything else. */
  async function codeFrom(ctx: FlowContext, t: Translate): Promise<Identified | undefined> {
    const shared = sharedContact(ctx);
    if (shared === "not-own") {
      await ctx.reply(t("contact-not-own"));
      return undefined;
    }
    if (shared) return shared;
    const text = ctx.message?.text;
    if (text !== undefined) return { code: text, proved: false };
    await ctx.reply(t("hint-send-code"));
    return undefined;
  }

  return async function identify(
    conversation: FlowConversation,
    ctx: FlowContext,
    locale: Locale,
    initial: Identified | null,
  ) {
    const { t, id: journeyId } = await beginFlow(conversation, deps.i18n, locale);
    let current = ctx;
    // Arguments travel as JSON: "no code" arrives as null.
    let pending = initial ?? undefined;
    const next = (
      isOwnButton?: (data: string) => boolean,
      passesOn?: (update: FlowContext) => boolean,
    ) => nextInFlow(conversation, isOwnButton, passesOn);

    if (pending === undefined) {
      const share = new Keyboard()
        .requestContact(t("share-phone-button"))
        .resized()
        .oneTime()
        .placeholder(t("code-placeholder"));
      const question = keepsPhone ? `${t("ask-code")}\n${t("ask-code-shop")}` : t("ask-code");
      await ctx.reply(question, { reply_markup: share });
    }

    let info: CustomerInfo | undefined;
    let lookedUp: Identified = { code: "", proved: false };
    while (!info) {
      if (pending === undefined) {
        current = await next();
        pending = await codeFrom(current, t);
        if (pending === undefined) continue;
      }
      const check = normalizeCustomerCode(pending.code);
      const { proved, contact } = pending;
      pending = undefined;
      if (!check.ok) {
        await current.reply(t("code-invalid"));
        continue;
      }
      const userId = current.from?.id ?? 0;
      lookedUp = { code: check.code, proved, ...(contact && { contact }) };
      const found = await providerStep(conversation, () =>
        lookUpCustomer(deps, userId, check.code),
      );
      if (found === "cancelled") return;
      if (found.kind === "limited") {
        const time = deps.formatter(locale).clock(found.retryAt);
        await current.reply(t("lookup-limited", { time }), {
          reply_markup: { remove_keyboard: true },
        });
        return;
      }
      if (found.kind === "failed" && found.failure === "not-found") {
        await current.reply(t("customer-not-found", { code: escapeHtml(check.code) }));
        continue;
      }
      if (found.kind === "failed") {
        await current.reply(t(failureKey(found.failure)), {
          reply_markup: { remove_keyboard: true },
        });
        return;
      }
      info = found.info;
    }
    // Kept for /language: the flow then starts again from this customer, in the new language.
    const found = lookedUp;
    const foundInfo = info;
    await conversation.external(async (outside) => {
      await deps.drafts.put(outside.chat?.id ?? 0, IDENTIFIED_DRAFT, found);
      // Their own number, and a customer's: the shop lists its connections (until /forget).
      if (keepsPhone && found.contact && outside.from) {
        await keepNumber(deps, outside.from.id, found.code, foundInfo);
      }
    });

    const masked = !lookedUp.proved;
    const customer = customerCard(info.customer, t, masked);
    const card = masked ? `${customer}\n${t("masked-note")}` : customer;
    if (info.connections.length === 0) {
      await current.reply(`${card}\n\n${t("no-connections")}`, {
        reply_markup: { remove_keyboard: true },
      });
      return;
    }
    await current.reply(card, { reply_markup: { remove_keyboard: true } });

    // Looked up by one connection's own id (a saved connection, a retry): that one.
    const named = typedConnection(info.connections, lookedUp.code);
    let connection = named ?? (info.connections[0] as Connection);
    if (!named && info.connections.length > 1) {
      const connections = info.connections;
      const choice = connectionChoice(journeyId, connections, 0, t, masked);
      const prompt = await current.reply(choice.text, { reply_markup: choice.keyboard });
      let shownPage = 0;
      for (;;) {
        // A contact shared meanwhile (from the shop, say) starts again from it, as /topup would.
        const pick = await next(isConnectionButton, isContact);
        const typed = typedChoice(connections, pick.message?.text, masked);
        if (!pick.callbackQuery && !typed) {
          await pick.reply(t("hint-use-buttons"));
          continue;
        }
        const button = topupButtons.decode(pick.callbackQuery?.data ?? "");
        if (button?.kind === "connections" && button.journeyId === journeyId) {
          await pick.answerCallbackQuery();
          const page = connectionChoice(journeyId, connections, button.page, t, masked);
          if (page.page === shownPage) continue;
          await pick.api.editMessageText(prompt.chat.id, prompt.message_id, page.text, {
            reply_markup: page.keyboard,
          });
          shownPage = page.page;
          continue;
        }
        const tapped =
          button?.kind === "connection" && button.journeyId === journeyId
            ? connections[button.index]
            : undefined;
        const chosen = typed ?? tapped;
        if (!chosen) {
          await pick.answerCallbackQuery(t("menu-expired"));
          continue;
        }
        if (pick.callbackQuery) await pick.answerCallbackQuery();
        const line = connectionLine(chosen, t, masked, connections);
        await pick.api.editMessageText(prompt.chat.id, prompt.message_id, line);
        connection = chosen;
        current = pick;
        break;
      }
    }

    const cuid = info.customer.cuid;
    const loaded = await providerStep(conversation, () =>
      load(cuid, connection, journeyId, masked),
    );
    if (loaded === "cancelled") return;
    if (loaded.kind === "failed") {
      await current.reply(t(failureKey(loaded.failure)));
      return;
    }
    const fmt = deps.formatter(locale);
    const view = overviewView(loaded.journey, t, fmt, loaded.journey.updatedAt);
    const menu = await current.reply(view.text, { reply_markup: view.keyboard });
    await conversation.external(async (outside) => {
      await deps.listings.put(journeyId, listingOf(loaded.journey));
      outside.session.journey = placeOf({ ...loaded.journey, menuMessageId: menu.message_id });
    });
  };
}
