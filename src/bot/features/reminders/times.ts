// When a subscription's reminders fire: its end minus each configured number of days, counted
// in the provider's zone (a day is not always 24 hours there), skipping times already past.
import { DateTime } from "luxon";
import type { Reminder } from "../../../domain/reminders.js";
import { newFlowId } from "../../shared/flow.js";

export function reminderTimes(end: number, daysBefore: number[], zone: string, now: number) {
  const at = DateTime.fromMillis(end, { zone });
  return daysBefore
    .map((days) => ({ daysBefore: days, fireAt: at.minus({ days }).toMillis() }))
    .filter(({ fireAt }) => fireAt > now)
    .sort((a, b) => a.fireAt - b.fireAt);
}

/** The reminders for one subscription of one user; none when every time is past. */
export function remindersFor(
  base: Omit<Reminder, "id" | "fireAt" | "daysBefore">,
  daysBefore: number[],
  zone: string,
  now: number,
): Reminder[] {
  return reminderTimes(base.end, daysBefore, zone, now).map((time) => ({
    ...base,
    ...time,
    id: newFlowId(),
  }));
}
