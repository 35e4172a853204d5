import { describe, expect, it } from "vitest";
import { daysAsked } from "../../src/domain/reconcile-days.js";

describe("the days /reconcile is asked for", () => {
  it("yesterday by default, one day, or a range", () => {
    expect(daysAsked("", "2026-11-24")).toEqual({ ok: true, days: ["2026-11-24"] });
    expect(daysAsked(" 2026-11-20 ", "x")).toEqual({ ok: true, days: ["2026-11-20"] });
    const november = daysAsked("2026-11-01..2026-11-30", "x");
    expect(november.ok && november.days).toHaveLength(30);
    const leap = daysAsked("2028-02-28..2028-03-01", "x");
    expect(leap).toEqual({ ok: true, days: ["2028-02-28", "2028-02-29", "2028-03-01"] });
  });
  it("refuses malformed, reversed and too long ranges", () => {
    for (const bad of ["yesterday", "2026-13-01", "2026-02-30", "2026-11-01..", "1..2..3"]) {
      expect(daysAsked(bad, "x")).toEqual({ ok: false, problem: "malformed" });
    }
    expect(daysAsked("2026-11-20..2026-11-01", "x")).toEqual({ ok: false, problem: "reversed" });
    expect(daysAsked("2026-10-01..2026-11-01", "x")).toEqual({ ok: false, problem: "too-long" });
    expect(daysAsked("2026-10-01..2026-10-31", "x").ok).toBe(true);
  });
});
