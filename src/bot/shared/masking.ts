// What a buyer who typed a code (not their own shared contact) sees of the customer: enough to
// choose a connection, not enough to learn who the customer is (issue #29, enumeration).
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
