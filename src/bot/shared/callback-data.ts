// One scheme for the data of every button: "<feature>:<part>:<part>...", each part letters,
// digits, "_" or "-", at most 64 bytes in all (Telegram's limit). Each feature declares its
// codec with `callbackCodec`; decoding anything this bot did not produce gives null.
// Buttons carry short ids and small indices, never provider codes.
import { InlineKeyboard } from "grammy";

export const MAX_CALLBACK_BYTES = 64;

const PART = /^[\w-]+$/;

export interface CallbackCodec<T> {
  /** Matches every button of this codec, for `bot.callbackQuery`. */
  readonly filter: RegExp;
  encode(value: T): string;
  /** null for forged data, other features' data and old formats. */
  decode(data: string): T | null;
}

export function callbackCodec<T>(
  feature: string,
  toParts: (value: T) => readonly (string | number)[],
  fromParts: (parts: readonly string[]) => T | null,
): CallbackCodec<T> {
  const prefix = `${feature}:`;
  return {
    filter: new RegExp(`^${feature}:`),
    encode(value) {
      const parts = toParts(value).map(String);
      if (!parts.every((part) => PART.test(part))) {
        throw new RangeError(`callback data of "${feature}" has a part outside [A-Za-z0-9_-]`);
      }
      const data = prefix + parts.join(":");
      if (Buffer.byteLength(data, "utf8") > MAX_CALLBACK_BYTES) {
        throw new RangeError(`callback data over ${MAX_CALLBACK_BYTES} bytes`);
      }
      return data;
    },
    decode(data) {
      if (!data.startsWith(prefix)) return null;
      const parts = data.slice(prefix.length).split(":");
      return parts.every((part) => PART.test(part)) ? fromParts(parts) : null;
    },
  };
}

/** A whole number part within 0..max, or null. */
export function indexPart(part: string | undefined, max = 9_999): number | null {
  if (part === undefined || !/^\d{1,4}$/.test(part)) return null;
  const value = Number(part);
  return value <= max ? value : null;
}

/** Buttons any feature may show that lead into another feature's flow. */
export type EntryButton = "topup";

export const entryButtons = callbackCodec<EntryButton>(
  "go",
  (target) => [target],
  ([target, ...rest]) => (target === "topup" && rest.length === 0 ? target : null),
);

/** The way on from a dead end: one button that starts a new top-up. */
export const startTopupKeyboard = (label: string) =>
  new InlineKeyboard().text(label, entryButtons.encode("topup"));
