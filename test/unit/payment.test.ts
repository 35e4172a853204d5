import { describe, expect, it } from "vitest";
import {
  fromMinorUnits,
  minorUnitDigits,
  paysFor,
  toMinorUnits,
} from "../../src/domain/payment.js";
import type { Purchase } from "../../src/domain/purchase.js";

describe("minor units", () => {
  it("take the exponent from the platform's currency data", () => {
    expect(minorUnitDigits("NPR")).toBe(2);
    expect(minorUnitDigits("JPY")).toBe(0);
    expect(minorUnitDigits("KWD")).toBe(3);
    expect(minorUnitDigits("XQQ")).toBeNull();
  });

  it("convert exactly, never through a float", () => {
    expect(toMinorUnits("700", 2)).toBe(70_000);
    expect(toMinorUnits("700.5", 2)).toBe(70_050);
    expect(toMinorUnits("0.29", 2)).toBe(29);
    // 1.005 * 100 is 100.49999999999999 as a float.
    expect(toMinorUnits("1.005", 3)).toBe(1_005);
    expect(toMinorUnits("65.50", 2)).toBe(6_550);
    expect(toMinorUnits("12.345", 2)).toBeNull();
    expect(toMinorUnits("12.300", 2)).toBe(1_230);
    expect(toMinorUnits("1500", 0)).toBe(1_500);
    expect(toMinorUnits("99999999999999999999", 2)).toBeNull();
  });

  it("come back as the amount they stand for", () => {
    expect(fromMinorUnits(70_000, 2)).toBe("700.00");
    expect(fromMinorUnits(5, 2)).toBe("0.05");
    expect(fromMinorUnits(1_500, 0)).toBe("1500");
    expect(fromMinorUnits(1_005, 3)).toBe("1.005");
  });
});

describe("a confirmation pays for a purchase", () => {
  const awaiting = {
    phase: "awaiting-payment",
    payment: { method: "telegram", currency: "NPR", minor: 70_000, expiresAt: 0 },
  } as Purchase;
  const confirmation = {
    method: "telegram" as const,
    purchaseId: "p",
    currency: "NPR",
    minor: 70_000,
    charge: { id: "c", providerId: null, at: 0 },
  };

  const none = new Set<never>();

  it("only while it waits, for exactly the amount and currency asked", () => {
    expect(paysFor(awaiting, confirmation, none)).toBe(true);
    expect(paysFor(awaiting, { ...confirmation, minor: 69_999 }, none)).toBe(false);
    expect(paysFor(awaiting, { ...confirmation, currency: "USD" }, none)).toBe(false);
    expect(paysFor({ ...awaiting, phase: "paid" }, confirmation, none)).toBe(false);
    expect(paysFor({ ...awaiting, phase: "unpaid" }, confirmation, none)).toBe(false);
    const { payment: _payment, ...unpaidMode } = awaiting;
    expect(paysFor(unpaidMode as Purchase, confirmation, none)).toBe(false);
  });

  it("by the method offered now, or by one the buyer switched away from", () => {
    const khalti = { ...confirmation, method: "khalti" as const };
    expect(paysFor(awaiting, khalti, none)).toBe(false);
    expect(paysFor(awaiting, khalti, new Set(["khalti" as const]))).toBe(true);
  });
});
