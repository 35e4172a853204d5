import type { Reminder } from "../../src/domain/reminders.js";

/** A reminder of the Gold package on TV 8000000011, due at `fireAt`, a day before its end. */
export const aReminder = (id: string, user: number, fireAt: number): Reminder => ({
  id,
  user,
  language: "en",
  cuid: "1000001",
  connection: { service: "tv", id: "8000000011" },
  bouquet: { code: "TV-GOLD-M", name: "Gold (MONTHLY)" },
  end: fireAt + 86_400_000,
  daysBefore: 1,
  fireAt,
});
