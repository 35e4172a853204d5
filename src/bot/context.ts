import type { ConversationFlavor } from "@grammyjs/conversations";
import type { Context, SessionFlavor } from "grammy";
import type { Place } from "./session.js";
import type { Translate } from "./shared/labels.js";

export const LOCALES = ["en", "ne"] as const;
export type Locale = (typeof LOCALES)[number];

export interface SessionData {
  /** Chosen with /language; otherwise the Telegram client's language decides. */
  language?: Locale;
  /** The top-up journey's place; its listing is stored beside the session (ListingStore). */
  journey?: Place;
  /** When this private chat was last written to the subscriber registry, and in which language. */
  seen?: { at: number; language: string };
  /**
   * The language and address of the shop this private chat's own menu button was given
   * ("ne https://…/app/"); none: the bot's default (English, or no shop).
   */
  menuButton?: string;
  /** The conversations plugin's state, kept in the same Redis key (one read per update). */
  conversation?: unknown;
}

interface TranslateFlavor {
  /** The text of a key in this update's locale (shared/i18n.ts). */
  t: Translate;
}

interface FlowFlags {
  /** Set when this update arrived for a flow that expired or was made obsolete by a deploy. */
  flowExpired?: boolean;
}

export type BotContext = ConversationFlavor<
  Context & SessionFlavor<SessionData> & TranslateFlavor & FlowFlags
>;

/** Context inside conversations: no session, no i18n there (see identify.ts). */
export type FlowContext = Context;
