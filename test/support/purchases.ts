import type { Purchase } from "../../src/domain/purchase.js";

/** A charged purchase of Gold for 1000001's TV, with whatever the test changes. */
export function purchaseOf(overrides: Partial<Purchase> = {}): Purchase {
  const at = Date.parse("2026-11-22T08:00:00Z");
  return {
    id: "intent-1",
    version: 0,
    buyer: 5,
    language: "en",
    customer: { cuid: "1000001", name: "Ram Thapa" },
    connection: { service: "tv", id: "8000000011" },
    bouquet: { code: "TV-GOLD-M", name: "Gold (MONTHLY)", price: "700" },
    attempt: 1,
    checkout: { id: "co1", issuedAt: at },
    reference: "tg5-ref1",
    phase: "charged",
    told: "charged",
    transaction: { txnId: "TXN1", amount: "700", date: { at, text: "2026-11-22 08:00:00" } },
    refusal: null,
    reason: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}
