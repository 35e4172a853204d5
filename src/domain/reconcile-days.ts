// Which days an admin asked to reconcile: nothing (yesterday), one day, or a range of at most
// MAX_RECONCILE_DAYS. Days are calendar days in the provider's time zone, as YYYY-MM-DD.
const MAX_RECONCILE_DAYS = 31;

export type DaysAsked =
  | { ok: true; days: string[] }
  | { ok: false; problem: "malformed" | "reversed" | "too-long" };

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** The day at UTC midnight, or null when `text` is not a real calendar day. */
function dayOf(text: string): number | null {
  const match = DAY.exec(text);
  if (!match) return null;
  const at = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(at).toISOString().slice(0, 10) === text ? at : null;
}

const textOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** `argument` as typed after /reconcile; `yesterday` is the default day. */
export function daysAsked(argument: string, yesterday: string): DaysAsked {
  const text = argument.trim();
  if (text === "") return { ok: true, days: [yesterday] };
  const [first, last = first, ...rest] = text.split("..");
  const from = dayOf(first ?? "");
  const to = dayOf(last ?? "");
  if (rest.length > 0 || from === null || to === null) return { ok: false, problem: "malformed" };
  if (to < from) return { ok: false, problem: "reversed" };
  if ((to - from) / MS_PER_DAY + 1 > MAX_RECONCILE_DAYS) return { ok: false, problem: "too-long" };
  return { ok: true, days: daysBetween(first ?? "", last ?? "") };
}

/** Every day from `first` to `last`, both included (as typed: valid YYYY-MM-DD). */
export function daysBetween(first: string, last: string): string[] {
  const from = dayOf(first);
  const to = dayOf(last);
  if (from === null || to === null || to < from) return [];
  return Array.from({ length: (to - from) / MS_PER_DAY + 1 }, (_, i) =>
    textOf(from + i * MS_PER_DAY),
  );
}
