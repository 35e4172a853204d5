// The period of a report, from what the admin typed after /report: nothing (today), one day
// (2026-11-20) or a range of days (2026-11-01..2026-11-30, both included), as calendar days
// in the provider's zone.
import { DateTime } from "luxon";
import type { ReportPeriod } from "../../../domain/report.js";

/** The longest range a report covers: a leap year. */
const MAX_DAYS = 366;
/** A single day's chart shows the sales of the days up to it. */
const CHART_DAYS = 30;

type PeriodProblem =
  /** Not a day or a range of days, or no such day (2026-02-30). */
  | "malformed"
  /** The range ends before it starts. */
  | "reversed"
  | "too-long"
  /** It starts after today: nothing can be there yet. */
  | "future";

type PeriodAnswer = { ok: true; period: ReportPeriod } | { ok: false; problem: PeriodProblem };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day as such: the zone plays no part in counting days. */
const calendarDay = (day: string) => DateTime.fromISO(day, { zone: "utc" });

const isDay = (day: string) => DAY.test(day) && calendarDay(day).isValid;

export const today = (zone: string, now: number): string =>
  DateTime.fromMillis(now, { zone }).toISODate() as string;

export const daysBefore = (day: string, days: number): string =>
  calendarDay(day).minus({ days }).toISODate() as string;

export function parsePeriod(text: string, zone: string, now: number): PeriodAnswer {
  const current = today(zone, now);
  const words = text.trim();
  if (words === "") return { ok: true, period: { first: current, last: current } };
  const [first = "", last = first, ...rest] = words.split(/\s*\.\.\s*/);
  if (rest.length > 0 || !isDay(first) || !isDay(last)) return { ok: false, problem: "malformed" };
  if (last < first) return { ok: false, problem: "reversed" };
  const days = calendarDay(last).diff(calendarDay(first), "days").days + 1;
  if (days > MAX_DAYS) return { ok: false, problem: "too-long" };
  if (first > current) return { ok: false, problem: "future" };
  return { ok: true, period: { first, last } };
}

/** The days the chart shows: the period, or the last 30 days up to a single day. */
export const chartPeriod = (period: ReportPeriod): ReportPeriod =>
  period.first === period.last
    ? { first: daysBefore(period.last, CHART_DAYS - 1), last: period.last }
    : period;
