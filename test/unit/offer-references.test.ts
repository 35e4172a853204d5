// A payment system's reference of one offer (eSewa's transaction_uuid, Khalti's
// purchase_order_id): new for every offer, led by its purchase's id, within both systems' rules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { offerReferenceFor } from "../../src/adapters/payments/offer-references.js";

const ALLOWED = /^[A-Za-z0-9-]{1,49}$/;

describe("an offer's reference", () => {
  it("leads with the purchase's id, and is new for every offer of it", () => {
    const references = Array.from({ length: 50 }, () => offerReferenceFor("a1b2c3d4e5-3"));
    expect(new Set(references).size).toBe(50);
    for (const reference of references) {
      expect(reference).toMatch(/^a1b2c3d4e5-3-[0-9a-f]{8}$/);
    }
  });

  it("is letters, digits and hyphens, at most 49 characters, whatever the purchase id", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (purchaseId) => {
        expect(offerReferenceFor(purchaseId)).toMatch(ALLOWED);
      }),
    );
  });

  it("stands for an id it cannot use as it is by a digest of it, the same for the same id", () => {
    const odd = "journey/42 ü";
    const [first, second] = [offerReferenceFor(odd), offerReferenceFor(odd)];
    expect(first?.slice(0, 24)).toBe(second?.slice(0, 24));
    expect(first).toMatch(/^[0-9a-f]{24}-[0-9a-f]{8}$/);
    expect(offerReferenceFor("x".repeat(41))).toMatch(/^[0-9a-f]{24}-[0-9a-f]{8}$/);
  });
});
