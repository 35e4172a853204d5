import { describe, expect, it } from "vitest";
import { type Journey, PAGE_SIZE, pageOf, renewals } from "../../src/bot/features/topup/journey.js";
import { parseBouquetName } from "../../src/domain/bouquet-name.js";
import { filtersPresent } from "../../src/domain/catalogue.js";
import type { Bouquet } from "../../src/domain/model.js";

const bouquet = (code: string, name: string, price = "100"): Bouquet => ({
  code,
  name,
  price,
  ...parseBouquetName(name),
});

function journeyWith(bouquets: Bouquet[], subscriptions: { code: string; end: number }[] = []) {
  return {
    v: 1,
    id: "j",
    updatedAt: 0,
    customer: { cuid: "1", firstName: "A", lastName: "B", status: "active" },
    connection: { service: "tv", id: "1", status: "active" },
    checkout: { id: "c", issuedAt: 0 },
    subscriptions: subscriptions.map((s) => ({
      code: s.code,
      name: s.code,
      end: { at: s.end, text: String(s.end) },
    })),
    bouquets,
  } satisfies Journey;
}

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
