import { describe, expect, it } from "vitest";
import { ESEWA_WATCH_MARGIN_MS } from "../../src/adapters/payments/esewa/esewa.js";
import {
  completeMobile,
  fromMinorUnits,
  minorUnitDigits,
  nextLateLook,
  paysFor,
  toMinorUnits,
  watchedUntil,
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

  it("only while nothing paid for it, for exactly the amount and currency asked", () => {
    expect(paysFor(awaiting, confirmation, none)).toBe(true);
    expect(paysFor(awaiting, { ...confirmation, minor: 69_999 }, none)).toBe(false);
    expect(paysFor(awaiting, { ...confirmation, currency: "USD" }, none)).toBe(false);
    expect(paysFor({ ...awaiting, phase: "paid" }, confirmation, none)).toBe(false);
    for (const phase of ["charged", "refund-due", "refunded", "unknown", "requested"] as const) {
      expect(paysFor({ ...awaiting, phase }, confirmation, none)).toBe(false);
    }
    // Ended unpaid (cancelled, replaced, its window over): a payment found late pays for it,
    // for the amount asked only, and never once another payment paid for it.
    const ended = { ...awaiting, phase: "unpaid", reason: "cancelled" } as Purchase;
    expect(paysFor(ended, confirmation, none)).toBe(true);
    expect(paysFor(ended, { ...confirmation, minor: 70_001 }, none)).toBe(false);
    const charged = { ...ended.payment, charge: { id: "c0", providerId: null, at: 0 } };
    expect(paysFor({ ...ended, payment: charged } as Purchase, confirmation, none)).toBe(false);
    const { payment: _payment, ...unpaidMode } = awaiting;
    expect(paysFor(unpaidMode as Purchase, confirmation, none)).toBe(false);
  });

  it("paid by its buyer, where the system names the payer", () => {
    expect(paysFor(awaiting, { ...confirmation, payer: awaiting.buyer }, none)).toBe(true);
    expect(paysFor(awaiting, { ...confirmation, payer: null }, none)).toBe(true);
    expect(paysFor(awaiting, { ...confirmation, payer: awaiting.buyer + 1 }, none)).toBe(false);
  });

  it("never when part of it was given back outside the bot: partial money is no top-up", () => {
    const part = { ...confirmation, refundedOutside: { minor: null } };
    expect(paysFor(awaiting, part, none)).toBe(false);
    expect(paysFor(awaiting, { ...part, refundedOutside: { minor: 100 } }, none)).toBe(false);
  });

  it("by the method offered now, or by one the buyer switched away from", () => {
    const khalti = { ...confirmation, method: "khalti" as const };
    expect(paysFor(awaiting, khalti, none)).toBe(false);
    expect(paysFor(awaiting, khalti, new Set(["khalti" as const]))).toBe(true);
  });
});

describe("a payer's mobile number from a payment page", () => {
  it("is kept only complete: ten digits from 9, the country code dropped", () => {
    expect(completeMobile("9800000001")).toBe("9800000001");
    expect(completeMobile(" +9779800000001 ")).toBe("9800000001");
    expect(completeMobile("977-9800000001")).toBe("9800000001");
    for (const useless of [
      "98XXXXX001",
      "98*****001",
      "980000000",
      "98000000011",
      "8800000001",
      "",
    ]) {
      expect(completeMobile(useless)).toBeNull();
    }
  });
});

describe("how long an offer is watched (our clock may differ from the system's)", () => {
  const MINUTE = 60_000;
  const expiresAt = Date.UTC(2026, 10, 27, 12, 0);

  it("is its payable-until, then the system's margin", () => {
    // Khalti's expires_at with KHALTI_EXPIRY_MARGIN_SECONDS=600.
    expect(watchedUntil(expiresAt, { watchMarginMs: 10 * MINUTE })).toBe(expiresAt + 10 * MINUTE);
    // eSewa states no expiry: ESEWA_OFFER_MINUTES after the form was served, then a day.
    expect(ESEWA_WATCH_MARGIN_MS).toBe(24 * 60 * MINUTE);
    expect(watchedUntil(expiresAt, { watchMarginMs: ESEWA_WATCH_MARGIN_MS })).toBe(
      expiresAt + 24 * 60 * MINUTE,
    );
    // A system without one (Telegram's invoice, deleted when withdrawn), or a margin of 0.
    expect(watchedUntil(expiresAt, {})).toBe(expiresAt);
    expect(watchedUntil(expiresAt, undefined)).toBe(expiresAt);
    expect(watchedUntil(expiresAt, { watchMarginMs: -5 })).toBe(expiresAt);
  });

  it("covers a clock running ahead of the system's by less than the margin", () => {
    // Our clock 4 minutes ahead: Khalti still takes a payment until our 12:04; we watch till 12:10.
    const skew = 4 * MINUTE;
    const stillPayableUntil = expiresAt + skew;
    expect(watchedUntil(expiresAt, { watchMarginMs: 10 * MINUTE })).toBeGreaterThan(
      stillPayableUntil,
    );
  });

  it("looks up an offer in its margin less and less often, the last look on time", () => {
    const check = 10_000;
    const end = expiresAt + ESEWA_WATCH_MARGIN_MS;
    // Just past its payable-until: at the usual cadence.
    expect(nextLateLook(expiresAt + 1_000, expiresAt, end, check)).toBe(expiresAt + 11_000);
    // An hour past: a quarter of that.
    const hour = expiresAt + 60 * MINUTE;
    expect(nextLateLook(hour, expiresAt, end, check)).toBe(hour + 15 * MINUTE);
    // Twelve hours past: hourly at most.
    const half = expiresAt + 12 * 60 * MINUTE;
    expect(nextLateLook(half, expiresAt, end, check)).toBe(half + 60 * MINUTE);
    // Close to the end: just after it, never later (that look is the last one).
    expect(nextLateLook(end - MINUTE, expiresAt, end, check)).toBe(end + 1);
    // A day of eSewa's margin costs a few dozen lookups, not thousands.
    let looks = 0;
    for (let at = expiresAt + 1; at <= end; at = nextLateLook(at, expiresAt, end, check)) looks++;
    expect(looks).toBeGreaterThan(20);
    expect(looks).toBeLessThan(80);
  });
});
