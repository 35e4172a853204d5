import { describe, expect, it } from "vitest";
import { formatMinorUnits, parseMinorUnits } from "../../src/domain/provider-balance.js";

describe("amounts admins type for the provider balance", () => {
  it("reads whole and decimal amounts exactly, in minor units", () => {
    expect(parseMinorUnits("50000", 2)).toBe(5_000_000n);
    expect(parseMinorUnits("123456.50", 2)).toBe(12_345_650n);
    expect(parseMinorUnits("0.5", 2)).toBe(50n);
    expect(parseMinorUnits("700", 0)).toBe(700n);
  });
  it("refuses negative, text, too many decimals and empty", () => {
    for (const bad of ["-5", "x", "1.234", "", "1,000", "1e5", "12.", ".5"]) {
      expect(parseMinorUnits(bad, 2)).toBeNull();
    }
    expect(parseMinorUnits("1.5", 0)).toBeNull();
  });
  it("writes minor units back as the currency's decimal text", () => {
    expect(formatMinorUnits(12_345_650n, 2)).toBe("123456.50");
    expect(formatMinorUnits(5n, 2)).toBe("0.05");
    expect(formatMinorUnits(-150n, 2)).toBe("-1.50");
    expect(formatMinorUnits(700n, 0)).toBe("700");
  });
});
