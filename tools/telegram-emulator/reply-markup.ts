// Validation of reply_markup, keeping only the fields Telegram keeps. Inline keyboards end
// up on the message; reply keyboards, keyboard removal and force_reply change what the
// user's client shows.

import type {
  ForceReply,
  InlineKeyboardButton,
  InlineKeyboardMarkup,
  KeyboardButton,
  ReplyKeyboardMarkup,
  ReplyKeyboardRemove,
} from "grammy/types";
import { badRequest } from "./api-error.js";
import { normalizeLink } from "./entities.js";
import type { Params } from "./params.js";

export type ReplyMarkup =
  | InlineKeyboardMarkup
  | ReplyKeyboardMarkup
  | ReplyKeyboardRemove
  | ForceReply;

const INLINE_ACTIONS = [
  "callback_data",
  "url",
  "web_app",
  "login_url",
  "switch_inline_query",
  "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat",
  "copy_text",
  "callback_game",
  "pay",
  "disabled",
] as const;

const KEYBOARD_BUTTON_FIELDS = [
  "text",
  "icon_custom_emoji_id",
  "style",
  "request_users",
  "request_chat",
  "request_contact",
  "request_location",
  "request_poll",
  "request_managed_bot",
  "web_app",
] as const;

const MAX_CALLBACK_DATA_BYTES = 64;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The given keys of `source` that are set: a button or markup as Telegram stores it. */
function pick<T>(source: JsonObject, keys: readonly string[]): T {
  const picked: JsonObject = Object.fromEntries(
    keys.flatMap((key) => (source[key] === undefined ? [] : [[key, source[key]]])),
  );
  return picked as T;
}

/** The method's reply_markup; edits only take inline keyboards. */
export function readReplyMarkup(params: Params, inlineOnly: boolean): ReplyMarkup | undefined {
  const raw = params.json("reply_markup");
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw badRequest("can't parse reply keyboard markup JSON object");
  if (raw.inline_keyboard !== undefined) {
    return { inline_keyboard: readRows(raw.inline_keyboard, "inline_keyboard", readInlineButton) };
  }
  if (inlineOnly) throw badRequest("inline keyboard expected");
  if (raw.keyboard !== undefined) {
    return {
      keyboard: readRows(raw.keyboard, "keyboard", readKeyboardButton),
      ...pick<Partial<ReplyKeyboardMarkup>>(raw, [
        "is_persistent",
        "resize_keyboard",
        "one_time_keyboard",
        "input_field_placeholder",
        "selective",
      ]),
    };
  }
  if (raw.remove_keyboard === true) {
    return { remove_keyboard: true, ...pick<Partial<ReplyKeyboardRemove>>(raw, ["selective"]) };
  }
  if (raw.force_reply === true) {
    return {
      force_reply: true,
      ...pick<Partial<ForceReply>>(raw, ["input_field_placeholder", "selective"]),
    };
  }
  throw badRequest("can't parse reply keyboard markup JSON object");
}

function readRows<T>(rows: unknown, field: string, readButton: (raw: unknown) => T): T[][] {
  if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row))) {
    throw badRequest(`field "${field}" must be an Array of Arrays`);
  }
  return rows.map((row: unknown[]) => row.map(readButton)).filter((row) => row.length > 0);
}

function readInlineButton(raw: unknown): InlineKeyboardButton {
  if (!isObject(raw) || typeof raw.text !== "string") {
    throw badRequest('can\'t parse inline keyboard button: Field "text" must be of type String');
  }
  const action = INLINE_ACTIONS.find((key) => raw[key] !== undefined);
  if (action === undefined) throw badRequest("text buttons are unallowed in the inline keyboard");
  const data = raw.callback_data;
  if (
    action === "callback_data" &&
    (typeof data !== "string" || data === "" || Buffer.byteLength(data) > MAX_CALLBACK_DATA_BYTES)
  ) {
    throw badRequest("BUTTON_DATA_INVALID");
  }
  if (action === "url" && (typeof raw.url !== "string" || !normalizeLink(raw.url))) {
    throw badRequest("BUTTON_URL_INVALID");
  }
  return pick(raw, ["text", "icon_custom_emoji_id", "style", action]);
}

function readKeyboardButton(raw: unknown): Exclude<KeyboardButton, string> {
  if (typeof raw === "string") return { text: raw };
  if (!isObject(raw) || typeof raw.text !== "string") {
    throw badRequest('can\'t parse keyboard button: Field "text" must be of type String');
  }
  return pick(raw, KEYBOARD_BUTTON_FIELDS);
}

/** The inline keyboard a message carries; Telegram omits an empty one. */
export function inlineKeyboardOf(
  markup: ReplyMarkup | undefined,
): InlineKeyboardMarkup | undefined {
  return markup && "inline_keyboard" in markup && markup.inline_keyboard.length > 0
    ? markup
    : undefined;
}
