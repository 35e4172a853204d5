import { describe, expect, it } from "vitest";
import { chartPeriod, parsePeriod } from "../../src/bot/features/report/period.js";

// 2026-11-20T19:00Z is already 00:45 on 21 November in Kathmandu (5:45 ahead), still the 20th in UTC.
const NOW = Date.parse("2026-11-20T19:00:00Z");
const ZONE = "Asia/Kathmandu";
const parse = (text: string, zone = ZONE) => parsePeriod(text, zone, NOW);

describe("the period of /report", () => {
  it("is today in the provider's zone when nothing is given", () => {
    expect(parse("")).toEqual({ ok: true, period: { first: "2026-11-21", last: "2026-11-21" } });
    expect(parse("  ", "UTC")).toEqual({
      ok: true,
      period: { first: "2026-11-20", last: "2026-11-20" },
    });
  });

  it("takes one day, or a range with both ends included", () => {
    expect(parse("2026-11-20")).toEqual({
      ok: true,
      period: { first: "2026-11-20", last: "2026-11-20" },
    });
    expect(parse("2026-11-01..2026-11-30")).toEqual({
      ok: true,
      period: { first: "2026-11-01", last: "2026-11-30" },
    });
    expect(parse(" 2026-11-01 .. 2026-11-21 ")).toMatchObject({ ok: true });
    // A leap year is the longest range; it may end after today.
    expect(parse("2024-01-01..2024-12-31")).toMatchObject({ ok: true });
    expect(parse("2026-11-01..2026-12-31")).toMatchObject({ ok: true });
  });

  it("refuses what is not a day or a range of days", () => {
    for (const text of [
      "yesterday",
      "2026-11",
      "20-11-2026",
      "2026-13-01",
      "2026-02-30",
      "2026-11-01..",
      "..2026-11-01",
      "2026-11-01...2026-11-02",
      "2026-11-01..2026-11-02..2026-11-03",
      "2026-11-01 2026-11-02",
      "2026-11-01T00:00",
    ]) {
      expect(parse(text), text).toEqual({ ok: false, problem: "malformed" });
    }
  });

  it("refuses a reversed range, more than 366 days, and days still to come", () => {
    expect(parse("2026-11-30..2026-11-01")).toEqual({ ok: false, problem: "reversed" });
    expect(parse("2025-01-01..2026-01-02")).toEqual({ ok: false, problem: "too-long" });
    expect(parse("2020-01-01..2026-01-01")).toEqual({ ok: false, problem: "too-long" });
    expect(parse("2026-11-22")).toEqual({ ok: false, problem: "future" });
    // Today in Kathmandu, tomorrow in UTC.
    expect(parse("2026-11-21")).toMatchObject({ ok: true });
    expect(parse("2026-11-21", "UTC")).toEqual({ ok: false, problem: "future" });
  });

  it("charts the 30 days up to a single day, or the range itself", () => {
    expect(chartPeriod({ first: "2026-03-10", last: "2026-03-10" })).toEqual({
      first: "2026-02-09",
      last: "2026-03-10",
    });
    const range = { first: "2026-11-01", last: "2026-11-05" };
    expect(chartPeriod(range)).toEqual(range);
  });
});
