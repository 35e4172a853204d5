// The one rule of what a buyer is shown of a customer they found, wherever it appears (the
// customer card, the connection list, the confirm screen, the invoice, the receipt, /history,
// the saved connections, reminders): in full when they proved it theirs (their own shared
// contact, or a connection saved from a purchase of it), masked when they typed a code, which
// anyone may type (issue #29, enumeration): enough to choose a connection, not enough to learn
// who the customer is. Whoever did not record how it was found is treated as typed. Support
// staff's views are not a buyer's: they are never masked.
import type { Customer } from "../../domain/model.js";

const HIDDEN = "•••";
const HIDDEN_ID = "••••";
/** Characters of its end an id shows; more only where one list needs them (maskedIds). */
const ID_TAIL = 4;

/** "Ram", "Thapa" → "R••• T•••": the first letter of each name. */
export function maskedName(firstName: string, lastName: string): string {
  const initials = [firstName, lastName]
    .map((name) => Array.from(name.trim())[0])
    .filter((initial) => initial !== undefined);
  return initials.length === 0 ? HIDDEN : initials.map((i) => `${i}${HIDDEN}`).join(" ");
}

/**
 * A customer's name as the buyer may see it, from the provider's names: the first name and the
 * initial of the last ("Ram T.") when proved (anyone who knows a number can look one up, so
 * never the whole name), else the initials masked ("R••• T•••").
 */
export function shownCustomerName(
  customer: Pick<Customer, "firstName" | "lastName">,
  proved: boolean | undefined,
): string {
  if (!proved) return maskedName(customer.firstName, customer.lastName);
  const first = customer.firstName.trim();
  const initial = Array.from(customer.lastName.trim())[0];
  return initial ? `${first} ${initial}.` : first;
}

/** The id's last `kept` characters behind the mask. */
const withTail = (chars: string[], kept: number) =>
  `${HIDDEN_ID}${chars.slice(chars.length - kept).join("")}`;

/** Characters an id may show: never more than half of it. */
const mostShown = (chars: string[]) => Math.floor(chars.length / 2);

/** "8000000011" → "••••0011": the last characters, never more than half of the id. */
export function maskedId(id: string): string {
  const chars = Array.from(id.trim());
  return withTail(chars, Math.min(ID_TAIL, mostShown(chars)));
}

/**
 * The masked ids of one list (a customer's connections), told apart: ids that would read the
 * same keep one more character at a time until they differ, never more than half of each;
 * those that still read the same are numbered in the list's order ("••••0011 #1", "#2").
 */
export function maskedIds(ids: readonly string[]): string[] {
  const masks = ids.map((id) => {
    const chars = Array.from(id.trim());
    return { chars, kept: Math.min(ID_TAIL, mostShown(chars)) };
  });
  for (;;) {
    const shown = masks.map(({ chars, kept }) => withTail(chars, kept));
    const shared = sharedTexts(shown);
    const growing = masks.filter(
      (mask, i) => shared.has(shown[i] as string) && mask.kept < mostShown(mask.chars),
    );
    if (growing.length === 0) return numbered(shown, shared);
    for (const mask of growing) mask.kept += 1;
  }
}

/** The texts that occur more than once. */
function sharedTexts(texts: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const text of texts) (seen.has(text) ? shared : seen).add(text);
  return shared;
}

function numbered(texts: readonly string[], shared: Set<string>): string[] {
  const counts = new Map<string, number>();
  return texts.map((text) => {
    if (!shared.has(text)) return text;
    const position = (counts.get(text) ?? 0) + 1;
    counts.set(text, position);
    return `${text} #${position}`;
  });
}

/** A connection's id as the buyer may see it: whole when proved (`proved`), else masked. */
export const shownId = (id: string, proved: boolean | undefined): string =>
  proved ? id : maskedId(id);

/** The ids of one list as the buyer may see them: masked ones told apart (maskedIds). */
export const shownIds = (ids: readonly string[], proved: boolean | undefined): string[] =>
  proved ? [...ids] : maskedIds(ids);

/**
 * A customer's name as the buyer may see it: `shown` (first name and last initial, "Sita S.")
 * when proved, else the initials of its first and last word ("S••• S•••").
 */
export function shownName(shown: string, proved: boolean | undefined): string {
  if (proved) return shown;
  const words = shown.trim().split(/\s+/);
  return maskedName(words[0] ?? "", words.length > 1 ? (words.at(-1) ?? "") : "");
}
