import type { Transformer } from "grammy";

/** The methods whose text or caption is formatted. copyMessage keeps the original's. */
const FORMATTED = new Set(["sendMessage", "editMessageText", "sendPhoto", "editMessageCaption"]);

/**
 * Every text the bot sends is HTML (locales and views escape provider data): set once here,
 * for bot.api, the conversations' own Api objects and the broadcast sender's.
 */
export const htmlParseMode: Transformer = (prev, method, payload, signal) => {
  if (FORMATTED.has(method) && payload && !("parse_mode" in payload)) {
    return prev(method, { ...payload, parse_mode: "HTML" }, signal);
  }
  return prev(method, payload, signal);
};
