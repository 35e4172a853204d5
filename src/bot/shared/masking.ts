// What a buyer who typed a code (not their own shared contact) sees of the customer: enough to
// choose a connection, not enough to learn who the customer is (issue #29, enumeration).
const HIDDEN = "•••";
const HIDDEN_ID = "••••";
/** Characters an id keeps at most: its end, enough to tell one's connections apart. */
const ID_TAIL = 4;

/** "Ram", "Thapa" → "R••• T•••": the first letter of each name. */
export function maskedName(firstName: string, lastName: string): string {
  const initials = [firstName, lastName]
    .map((name) => Array.from(name.trim())[0])
    .filter((initial) => initial !== undefined);
  return initials.length === 0 ? HIDDEN : initials.map((i) => `${i}${HIDDEN}`).join(" ");
}

/** "8000000011" → "••••0011": the last characters, never more than half of the id. */
export function maskedId(id: string): string {
  const chars = Array.from(id.trim());
  const kept = Math.min(ID_TAIL, Math.floor(chars.length / 2));
  return `${HIDDEN_ID}${chars.slice(chars.length - kept).join("")}`;
}
