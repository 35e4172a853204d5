// Callback data of the top-up journey. Buttons carry a short journey id and small indices,
// never provider codes, so that they stay far below Telegram's 64-byte limit whatever the
// provider's codes look like; the journey in the session maps them back.
import type { BillingPeriod } from "../../../domain/model.js";

export type BouquetFilter = BillingPeriod | "addon" | "other";

const FILTER_CODES: Record<BouquetFilter, string> = {
  monthly: "m",
  quarterly: "q",
  "half-yearly": "h",
  yearly: "y",
  addon: "a",
  other: "o",
};
const FILTER_BY_CODE = new Map(
  Object.entries(FILTER_CODES).map(([filter, code]) => [code, filter as BouquetFilter]),
);

export type MenuAction =
  | { op: "overview" }
  | { op: "list"; filter: BouquetFilter; page: number }
  | { op: "pick"; bouquet: number }
  | { op: "confirm" }
  | { op: "cancel" }
  | { op: "noop" };

export interface MenuCallback {
  journeyId: string;
  action: MenuAction;
}

export const MAX_CALLBACK_BYTES = 64;

function checked(data: string): string {
  if (Buffer.byteLength(data, "utf8") > MAX_CALLBACK_BYTES) {
    throw new RangeError(`callback data over ${MAX_CALLBACK_BYTES} bytes`);
  }
  return data;
}

export function encodeMenu(journeyId: string, action: MenuAction): string {
  const prefix = `t:${journeyId}:`;
  switch (action.op) {
    case "overview":
      return checked(`${prefix}o`);
    case "list":
      return checked(`${prefix}l:${FILTER_CODES[action.filter]}:${action.page}`);
    case "pick":
      return checked(`${prefix}b:${action.bouquet}`);
    case "confirm":
      return checked(`${prefix}c`);
    case "cancel":
      return checked(`${prefix}x`);
    case "noop":
      return checked(`${prefix}n`);
  }
}

const MENU = /^t:([a-z0-9]{1,12}):(o|c|x|n|l:([a-z]):(\d{1,4})|b:(\d{1,4}))$/;

/** Returns null for anything this bot did not produce (forged or foreign data). */
export function decodeMenu(data: string): MenuCallback | null {
  const match = MENU.exec(data);
  if (!match?.[1] || !match[2]) return null;
  const journeyId = match[1];
  const [op] = match[2];
  if (op === "l") {
    const filter = FILTER_BY_CODE.get(match[3] ?? "");
    return filter ? { journeyId, action: { op: "list", filter, page: Number(match[4]) } } : null;
  }
  if (op === "b") return { journeyId, action: { op: "pick", bouquet: Number(match[5]) } };
  const simple = { o: "overview", c: "confirm", x: "cancel", n: "noop" } as const;
  return { journeyId, action: { op: simple[op as keyof typeof simple] } };
}

export const encodeConnection = (journeyId: string, index: number) =>
  checked(`k:${journeyId}:${index}`);
export const CONNECTION_DATA = /^k:([a-z0-9]{1,12}):(\d{1,3})$/;

/** Buttons under an outcome message. */
export const AFTER_ANOTHER = "r:another";
export const AFTER_DONE = "r:done";
export const encodeRetry = (reference: string) => checked(`r:retry:${reference}`);
export const RETRY_DATA = /^r:retry:([\w-]{1,30})$/;
