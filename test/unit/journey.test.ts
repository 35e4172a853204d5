import { describe, expect, it } from "vitest";
import { PAGE_SIZE, pageOf, renewals } from "../../src/bot/features/topup/journey.js";
import { filtersPresent } from "../../src/domain/catalogue.js";
import { bouquet, journeyWith } from "../support/journeys.js";

const monthly = Array.from({ length: 19 }, (_, i) => bouquet(`M${i}`, `Pack ${i} (MONTHLY)`));

describe("journey browsing", () => {
  it("offers only the filters that have bouquets, in a fixed order", () => {
    const list = [
      bouquet("Y", "Big (YEARLY)"),
      bouquet("A", "Sports [AddOn] (MONTHLY)"),
      bouquet("M", "Small (MONTHLY)"),
      bouquet("X", "Odd one"),
    ];
    expect(filtersPresent(list)).toEqual(["monthly", "yearly", "addon", "other"]);
  });

  it("pages by eight and clamps the page number", () => {
    const journey = journeyWith(monthly);
    expect(pageOf(journey, "monthly", 0)).toMatchObject({ page: 0, pages: 3 });
    expect(pageOf(journey, "monthly", 0).items).toHaveLength(PAGE_SIZE);
    expect(pageOf(journey, "monthly", 2).items).toEqual([16, 17, 18]);
    expect(pageOf(journey, "monthly", 99).page).toBe(2);
    expect(pageOf(journey, "monthly", -5).page).toBe(0);
    expect(pageOf(journey, "yearly", 0)).toEqual({ items: [], page: 0, pages: 1 });
  });

  it("puts renewals first, soonest ending first", () => {
    const journey = journeyWith(monthly, [
      { code: "M15", end: 2_000 },
      { code: "M9", end: 1_000 },
      { code: "GONE", end: 500 },
    ]);
    expect(renewals(journey)).toEqual([9, 15]);
    expect(pageOf(journey, "monthly", 0).items.slice(0, 2).sort()).toEqual([15, 9]);
  });
});
