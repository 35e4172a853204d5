// Steps 1 and 2 of the journey as a conversation: who to top up, and which connection.
// It ends by loading the packages into the session's journey (menu.ts takes over there).
// Everything non-deterministic runs in `conversation.external`, as replays require.
import { Keyboard } from "grammy";
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import type { Connection, CustomerInfo } from "../../../domain/model.js";
import { errorFields } from "../../../logger.js";
import { ProviderRejectedError } from "../../../provider/errors.js";
import type { FlowContext, Locale } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { escapeHtml } from "../../format/html.js";
import { type FlowConversation, nextInFlow } from "../flow.js";
import { CONNECTION_DATA } from "./callback-data.js";
import { type Journey, journeyFromOffer } from "./journey.js";
import { newJourneyId } from "./purchase.js";
import {
  connectionChoice,
  connectionLabel,
  customerCard,
  overviewView,
  type Translate,
} from "./views.js";

export const IDENTIFY = "identify";

type Lookup = { kind: "found"; info: CustomerInfo } | { kind: "not-found" } | { kind: "failed" };
type Loaded = { kind: "loaded"; journey: Journey } | { kind: "failed" };

const HTML = { parse_mode: "HTML" } as const;

export function createIdentify(deps: BotDeps) {
  async function lookup(code: string): Promise<Lookup> {
    try {
      return { kind: "found", info: await deps.provider.getCustomer(code) };
    } catch (error) {
      if (error instanceof ProviderRejectedError) return { kind: "not-found" };
      deps.logger.warn(errorFields(error), "customer lookup failed");
      return { kind: "failed" };
    }
  }

  async function load(cuid: string, connection: Connection, journeyId: string): Promise<Loaded> {
    try {
      const offer = await deps.provider.getPackages(cuid, connection);
      return { kind: "loaded", journey: journeyFromOffer(journeyId, offer, deps.now()) };
    } catch (error) {
      deps.logger.warn(errorFields(error), "package listing failed");
      return { kind: "failed" };
    }
  }

  /** Reads a code from a text or the sender's own shared contact; hints at anything else. */
  async function codeFrom(ctx: FlowContext, t: Translate): Promise<string | undefined> {
    const contact = ctx.message?.contact;
    if (contact) {
      if (contact.user_id !== ctx.from?.id) {
        await ctx.reply(t("contact-not-own"));
        return undefined;
      }
      return contact.phone_number;
    }
    const text = ctx.message?.text;
    if (text !== undefined) return text;
    await ctx.reply(t("hint-send-code"));
    return undefined;
  }

  return async function identify(
    conversation: FlowConversation,
    ctx: FlowContext,
    locale: Locale,
    initialCode: string | null,
  ) {
    const t: Translate = (key, variables) => deps.i18n.t(locale, key, variables);
    const journeyId = await conversation.external(() => newJourneyId());
    let current = ctx;
    // Arguments travel as JSON: "no code" arrives as null.
    let pending = initialCode ?? undefined;
    const next = (ownButtons?: RegExp) => nextInFlow(conversation, ownButtons);

    if (pending === undefined) {
      const share = new Keyboard()
        .requestContact(t("share-phone-button"))
        .resized()
        .oneTime()
        .placeholder(t("code-placeholder"));
      await ctx.reply(t("ask-code"), { reply_markup: share });
    }

    let info: CustomerInfo | undefined;
    while (!info) {
      if (pending === undefined) {
        current = await next();
        pending = await codeFrom(current, t);
        if (pending === undefined) continue;
      }
      const check = normalizeCustomerCode(pending);
      pending = undefined;
      if (!check.ok) {
        await current.reply(t("code-invalid"));
        continue;
      }
      const found = await conversation.external(() => lookup(check.code));
      if (found.kind === "failed") {
        await current.reply(t("provider-unavailable"), { reply_markup: { remove_keyboard: true } });
        return;
      }
      if (found.kind === "not-found") {
        await current.reply(t("customer-not-found", { code: escapeHtml(check.code) }), HTML);
        continue;
      }
      info = found.info;
    }

    const card = customerCard(info.customer, t);
    if (info.connections.length === 0) {
      await current.reply(`${card}\n\n${t("no-connections")}`, {
        ...HTML,
        reply_markup: { remove_keyboard: true },
      });
      return;
    }
    await current.reply(card, { ...HTML, reply_markup: { remove_keyboard: true } });

    let connection = info.connections[0] as Connection;
    if (info.connections.length > 1) {
      const choice = connectionChoice(journeyId, info.connections, t);
      const prompt = await current.reply(choice.text, { reply_markup: choice.keyboard });
      for (;;) {
        const pick = await next(CONNECTION_DATA);
        if (!pick.callbackQuery) {
          await pick.reply(t("hint-use-buttons"));
          continue;
        }
        const [, id, index] = CONNECTION_DATA.exec(pick.callbackQuery.data ?? "") ?? [];
        const chosen = info.connections[Number(index)];
        if (id !== journeyId || !chosen) {
          await pick.answerCallbackQuery(t("menu-expired"));
          continue;
        }
        await pick.answerCallbackQuery();
        await pick.api.editMessageText(
          prompt.chat.id,
          prompt.message_id,
          escapeHtml(connectionLabel(chosen, t)),
          HTML,
        );
        connection = chosen;
        current = pick;
        break;
      }
    }

    const cuid = info.customer.cuid;
    const loaded = await conversation.external(() => load(cuid, connection, journeyId));
    if (loaded.kind === "failed") {
      await current.reply(t("provider-unavailable"));
      return;
    }
    const fmt = deps.formatter(locale);
    const view = overviewView(loaded.journey, t, fmt, loaded.journey.updatedAt);
    const menu = await current.reply(view.text, { ...HTML, reply_markup: view.keyboard });
    await conversation.external((outside) => {
      outside.session.journey = { ...loaded.journey, menuMessageId: menu.message_id };
    });
  };
}
