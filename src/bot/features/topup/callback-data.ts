// The buttons of the top-up journey. Menu buttons carry the journey's short id and small
// indices; the journey in the session maps them back to connections and bouquets.
import type { BouquetFilter } from "../../../domain/catalogue.js";
import { PAYMENT_METHODS } from "../../../domain/purchase.js";
import type { MenuAction } from "../../session.js";
import { callbackCodec, indexPart } from "../../shared/callback-data.js";

export type TopupButton =
  | { kind: "menu"; journeyId: string; action: MenuAction }
  | { kind: "connection"; journeyId: string; index: number }
  /** A page of the connections to choose from (Prev, Next, and the page indicator). */
  | { kind: "connections"; journeyId: string; page: number }
  /** Under an outcome: start again, say goodbye, or try a not-charged top-up again. */
  | { kind: "another" }
  | { kind: "done" }
  | { kind: "retry"; reference: string }
  /** Under /topup: one of the user's saved connections, someone else, or forget them all. */
  | { kind: "saved"; index: number }
  | { kind: "someone-else" }
  | { kind: "forget" }
  /** "🔔 Remind me" under a receipt, and "Renew" under a reminder. */
  | { kind: "remind-receipt"; reference: string }
  | { kind: "renew-reminder"; id: string };

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

const SIMPLE_OPS = { o: "overview", c: "confirm", x: "cancel", n: "noop" } as const;
const SIMPLE_CODES = { overview: "o", confirm: "c", cancel: "x", noop: "n" } as const;

const JOURNEY_ID = /^[a-z0-9]{1,12}$/;

function menuParts(journeyId: string, action: MenuAction): (string | number)[] {
  switch (action.op) {
    case "list":
      return ["l", journeyId, FILTER_CODES[action.filter], action.page];
    case "pick":
      return ["b", journeyId, action.bouquet];
    case "remind":
      return ["v", journeyId, action.subscription];
    case "confirm":
      return action.method ? ["c", journeyId, action.method] : ["c", journeyId];
    default:
      return [SIMPLE_CODES[action.op], journeyId];
  }
}

function decode(parts: readonly string[]): TopupButton | null {
  const [op = "", second, third, fourth, ...rest] = parts;
  if (rest.length > 0) return null;
  if (op === "a" || op === "d" || op === "e" || op === "f") {
    if (second !== undefined) return null;
    return { kind: ({ a: "another", d: "done", e: "someone-else", f: "forget" } as const)[op] };
  }
  if (op === "s") {
    const index = indexPart(second);
    return index !== null && third === undefined ? { kind: "saved", index } : null;
  }
  if (op === "r" || op === "w") {
    if (second === undefined || second.length > 30 || third !== undefined) return null;
    return op === "r"
      ? { kind: "retry", reference: second }
      : { kind: "remind-receipt", reference: second };
  }
  if (op === "z") {
    return second !== undefined && JOURNEY_ID.test(second) && third === undefined
      ? { kind: "renew-reminder", id: second }
      : null;
  }
  if (second === undefined || !JOURNEY_ID.test(second)) return null;
  const journeyId = second;
  const index = indexPart(third);
  if (op === "k") {
    return index !== null && fourth === undefined ? { kind: "connection", journeyId, index } : null;
  }
  if (op === "p") {
    return index !== null && fourth === undefined
      ? { kind: "connections", journeyId, page: index }
      : null;
  }
  if (op === "b") {
    return index !== null && fourth === undefined
      ? { kind: "menu", journeyId, action: { op: "pick", bouquet: index } }
      : null;
  }
  if (op === "v") {
    return index !== null && fourth === undefined
      ? { kind: "menu", journeyId, action: { op: "remind", subscription: index } }
      : null;
  }
  if (op === "l") {
    const filter = FILTER_BY_CODE.get(third ?? "");
    const page = indexPart(fourth);
    return filter && page !== null
      ? { kind: "menu", journeyId, action: { op: "list", filter, page } }
      : null;
  }
  if (op === "c" && third !== undefined) {
    const method = PAYMENT_METHODS.find((known) => known === third);
    return method && fourth === undefined
      ? { kind: "menu", journeyId, action: { op: "confirm", method } }
      : null;
  }
  const simple = SIMPLE_OPS[op as keyof typeof SIMPLE_OPS];
  return simple && third === undefined ? { kind: "menu", journeyId, action: { op: simple } } : null;
}

export const topupButtons = callbackCodec<TopupButton>(
  "t",
  (button) => {
    switch (button.kind) {
      case "menu":
        return menuParts(button.journeyId, button.action);
      case "connection":
        return ["k", button.journeyId, button.index];
      case "connections":
        return ["p", button.journeyId, button.page];
      case "another":
        return ["a"];
      case "done":
        return ["d"];
      case "retry":
        return ["r", button.reference];
      case "saved":
        return ["s", button.index];
      case "someone-else":
        return ["e"];
      case "forget":
        return ["f"];
      case "remind-receipt":
        return ["w", button.reference];
      case "renew-reminder":
        return ["z", button.id];
    }
  },
  decode,
);

export const menuButton = (journeyId: string, action: MenuAction) =>
  topupButtons.encode({ kind: "menu", journeyId, action });

/** Renew under a reminder (features/reminders/delivery.ts draws it): that bouquet, confirmed. */
export const renewButton = (reminderId: string) =>
  topupButtons.encode({ kind: "renew-reminder", id: reminderId });
