import { describe, expect, it } from "vitest";
import { reminderTimes } from "../../src/bot/features/reminders/times.js";

describe("reminder times", () => {
  it("count days in the provider's zone, not 24-hour steps, and skip what is past", () => {
    // New York leaves summer time on 1 Nov 2026: 3 days before noon on 2 Nov is noon on 30 Oct,
    // which is 25 hours more than 72.
    const end = Date.parse("2026-11-02T17:00:00Z"); // 12:00 in New York (EST)
    const now = Date.parse("2026-10-20T00:00:00Z");
    expect(reminderTimes(end, [1, 3], "America/New_York", now)).toEqual([
      { daysBefore: 3, fireAt: Date.parse("2026-10-30T16:00:00Z") }, // 12:00 EDT
      { daysBefore: 1, fireAt: Date.parse("2026-11-01T17:00:00Z") },
    ]);
    expect(
      reminderTimes(end, [1, 3], "America/New_York", Date.parse("2026-10-31T00:00:00Z")),
    ).toEqual([{ daysBefore: 1, fireAt: Date.parse("2026-11-01T17:00:00Z") }]);
    expect(reminderTimes(end, [1], "Asia/Kathmandu", end)).toEqual([]);
  });
});
