import { describe, expect, it } from "vitest";
import { parseBouquetName } from "../../src/domain/bouquet-name.js";

describe("parseBouquetName", () => {
  it.each([
    ["Gold HD (MONTHLY)", "Gold HD", "monthly", false],
    ["Gold HD (QUARTERLY)", "Gold HD", "quarterly", false],
    ["Gold HD (HALF YEARLY)", "Gold HD", "half-yearly", false],
    ["Gold HD (YEARLY)", "Gold HD", "yearly", false],
    ["Sports HD [AddOn] (MONTHLY)", "Sports HD", "monthly", true],
    ["[AddOn] Kids (YEARLY)", "Kids", "yearly", true],
  ] as const)("%s", (name, displayName, period, addOn) => {
    expect(parseBouquetName(name)).toEqual({ displayName, period, addOn });
  });

  it("tolerates odd case, spacing and hyphens", () => {
    expect(parseBouquetName("  Basic   SD  ( half-yearly ) ")).toEqual({
      displayName: "Basic SD",
      period: "half-yearly",
      addOn: false,
    });
    expect(parseBouquetName("Movies [ add-on ](Monthly)")).toEqual({
      displayName: "Movies",
      period: "monthly",
      addOn: true,
    });
    expect(parseBouquetName("Fibre 100 (HALFYEARLY)").period).toBe("half-yearly");
  });

  it("keeps unknown parentheses as part of the name", () => {
    expect(parseBouquetName("Family Pack (Nepali)")).toEqual({
      displayName: "Family Pack (Nepali)",
      period: null,
      addOn: false,
    });
    expect(parseBouquetName("Plain")).toEqual({ displayName: "Plain", period: null, addOn: false });
  });

  it("is stable across repeated calls (no regex state leaks between names)", () => {
    for (let i = 0; i < 3; i++) {
      expect(parseBouquetName("A [AddOn] (MONTHLY)").addOn).toBe(true);
    }
  });

  it("never returns an empty display name", () => {
    expect(parseBouquetName("[AddOn] (MONTHLY)").displayName).toBe("[AddOn] (MONTHLY)");
  });
});
