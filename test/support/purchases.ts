import type { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { PaymentAlarm, PaymentLedger } from "../../src/domain/payment.js";
import type { Log } from "../../src/domain/ports.js";
import type { Purchase } from "../../src/domain/purchase.js";
import type { PurchaseBook } from "../../src/domain/purchase-book.js";
import { RefundDesk } from "../../src/domain/refunds.js";

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

/** A purchase opened just now and waiting for its payment (no checkout, nothing told yet). */
export function awaitingPurchaseOf(overrides: Partial<Purchase> = {}): Purchase {
  const now = Date.now();
  return purchaseOf({
    phase: "awaiting-payment",
    told: null,
    transaction: null,
    checkout: null,
    reference: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  });
}

/** The operators' alarm of a payment service, saying nothing: for tests that do not read it. */
export const quietAlarm: PaymentAlarm = {
  notKept: async () => undefined,
  setAside: async () => undefined,
  tellBuyer: async () => undefined,
  quarantined: async () => undefined,
};

/** A refund desk that tells nobody, its top-ups' last look always "owed": for tests that do not read it. */
export const quietRefundDesk = (
  book: PurchaseBook,
  store: PaymentLedger,
  teller: OutcomeTeller,
  log: Log,
): RefundDesk =>
  new RefundDesk(
    book,
    store,
    teller,
    { alertOperators: async () => undefined, tellBuyer: async () => undefined },
    async () => "owed",
    log,
  );

/** A payment service's settings where a test does not vary them (NPR, a minute's window). */
export const TEST_PAYMENT_SETTINGS = {
  currency: "NPR",
  minorDigits: 2,
  windowMs: 60_000,
  lockTtlMs: 1_000,
  retryMs: 10,
  checkMs: 60_000,
};
