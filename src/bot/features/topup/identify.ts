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
import { connectionChoice, connectionLine, customerCard, overviewView } from "./views.js";

export const IDENTIFY = "identify";
/** The draft holding how the flow found its customer (never a journey id: "-"). */
export const IDENTIFIED_DRAFT = "-identified";

/**
 * A code to look a customer up by, and whether it is the buyer's own shared contact (the full
 * view) or typed (the masked one: anyone may type anyone's code).
 */
export interface Identified {
  code: string;
  ownContact: boolean;
}

/** The IDENTIFIED_DRAFT as stored, if it is one (a draft of an older shape is not). */
export function identifiedOf(stored: unknown): Identified | null {
  const found = stored as Partial<Identified> | null;
  return typeof found?.code === "string" && typeof found.ownContact === "boolean"
    ? { code: found.code, ownContact: found.ownContact }
    : null;
}

/** What the user reads when the provider could not answer (a refusal means "not found"). */
const failureKey = (failure: ReadFailure) =>
  failure === "unauthorized" ? "topups-paused" : "provider-unavailable";

type Failure = { kind: "failed"; failure: ReadFailure };
type Lookup =
  | { kind: "found"; info: CustomerInfo }
  | { kind: "limited"; retryAt: number }
  | Failure;
type Loaded = { kind: "loaded"; journey: Journey } | Failure;

const isConnectionButton = (data: string) => {
  const kind = topupButtons.decode(data)?.kind;
  return kind === "connection" || kind === "connections";
};

/** A connection by the id typed instead of tapped. */
const typedConnection = (connections: Connection[], text: string | undefined) =>
  connections.find((c) => c.id.toLowerCase() === text?.trim().toLowerCase());

/** Masked, a typed id is not matched: that would tell the ids the buttons hide, untimed. */
const typedChoice = (connections: Connection[], text: string | undefined, masked: boolean) =>
  masked ? undefined : typedConnection(connections, text);

export function createIdentify(deps: BotDeps) {
  async function lookup(userId: number, code: string): Promise<Lookup> {
    const allowance = await deps.lookupLimit.take(userId);
    if (!allowance.allowed) {
      deps.metrics.lookupsLimited.inc();
      return { kind: "limited", retryAt: allowance.retryAt };
    }
    const found = await ask(() => deps.provider.getCustomer(code), deps.logger, "customer lookup");
    if (!found.ok && found.failure === "not-found") await deps.lookupLimit.missed(userId);
    return found.ok
      ? { kind: "found", info: found.value }
      : { kind: "failed", failure: found.failure };
  }

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
    const contact = ctx.message?.contact;
    if (contact) {
      if (contact.user_id !== ctx.from?.id) {
        await ctx.reply(t("contact-not-own"));
        return undefined;
      }
      return { code: contact.phone_number, ownContact: true };
    }
    const text = ctx.message?.text;
    if (text !== undefined) return { code: text, ownContact: false };
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
    const next = (isOwnButton?: (data: string) => boolean) => nextInFlow(conversation, isOwnButton);

    if (pending === undefined) {
      const share = new Keyboard()
        .requestContact(t("share-phone-button"))
        .resized()
        .oneTime()
        .placeholder(t("code-placeholder"));
      await ctx.reply(t("ask-code"), { reply_markup: share });
    }

    let info: CustomerInfo | undefined;
    let lookedUp: Identified = { code: "", ownContact: false };
    while (!info) {
      if (pending === undefined) {
        current = await next();
        pending = await codeFrom(current, t);
        if (pending === undefined) continue;
      }
      const check = normalizeCustomerCode(pending.code);
      const { ownContact } = pending;
      pending = undefined;
      if (!check.ok) {
        await current.reply(t("code-invalid"));
        continue;
      }
      const userId = current.from?.id ?? 0;
      lookedUp = { code: check.code, ownContact };
      const found = await providerStep(conversation, () => lookup(userId, check.code));
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
    await conversation.external((outside) =>
      deps.drafts.put(outside.chat?.id ?? 0, IDENTIFIED_DRAFT, found),
    );

    const masked = !lookedUp.ownContact;
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
        const pick = await next(isConnectionButton);
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
