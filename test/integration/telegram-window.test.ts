// A Telegram payment approved at the window's end must not be told "nothing was charged" (issue
// 36's review, finding 11): Telegram charges the card after the pre-checkout was approved, which
// takes seconds (3-D Secure: a minute or more). So a pre-checkout in the window's last moments
// (PAYMENT_CLOSING_SECONDS) is refused, and an invoice still awaited ends "not paid" only a grace
// (TELEGRAM_PAYMENT_GRACE_SECONDS) after its window. Over the real ledger, on the service's clock.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { PaymentJournal, PaymentSystem } from "../../src/domain/payment.js";
import { PaymentService } from "../../src/domain/payment-service.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { PurchaseBook } from "../../src/domain/purchase-book.js";
import type { TopupService } from "../../src/domain/topup.js";
import { testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import { purchaseOf, quietAlarm, quietRefundDesk } from "../support/purchases.js";

const ledger = testLedger("PGlite", "telegram_window");
const { logger } = captureLogs();
const WINDOW_ENDS = Date.parse("2026-11-27T12:00:00Z");
const CLOSING_MS = 60_000;
const GRACE_MS = 300_000;
let clock = WINDOW_ENDS;
let store: LedgerPurchases;
let payments: PaymentService;
let told: Purchase[];
let withdrawn: string[];

beforeAll(() => {
  store = new LedgerPurchases(ledger.connection, "telegram-window");
  const book = new PurchaseBook(store, logger);
  told = [];
  withdrawn = [];
  const teller = new OutcomeTeller(
    book,
    { tell: async (purchase) => void told.push({ ...purchase }) },
    logger,
  );
  const refunds = quietRefundDesk(book, store, teller, logger);
  const telegram = {
    method: "telegram",
    withdraw: async (purchase: Purchase) => void withdrawn.push(purchase.id),
  } as unknown as PaymentSystem;
  payments = new PaymentService(
    book,
    store,
    {} as PaymentJournal,
    {} as TopupService,
    teller,
    new Map([["telegram", telegram]]),
    refunds,
    quietAlarm,
    () => true,
    {
      currency: "NPR",
      minorDigits: 2,
      windowMs: 900_000,
      lockTtlMs: 1_000,
      retryMs: 10,
      checkMs: 60_000,
      closingMs: CLOSING_MS,
      graceMs: GRACE_MS,
    },
    logger,
    () => clock,
  );
});
afterEach(() => ledger.empty());

async function awaiting(id: string): Promise<void> {
  const purchase = purchaseOf({
    id,
    buyer: 7,
    phase: "awaiting-payment",
    told: null,
    transaction: null,
    checkout: null,
    reference: null,
    createdAt: WINDOW_ENDS - 900_000,
    updatedAt: WINDOW_ENDS - 900_000,
    payment: {
      method: "telegram",
      currency: "NPR",
      minor: 70_000,
      expiresAt: WINDOW_ENDS,
      offer: "invoice-1",
    },
  });
  const created = await store.create(purchase, 1_000);
  if (created.kind === "created") await created.lease.release();
}

const claim = (id: string) => ({ id, lease: { release: async () => undefined } }) as never;

describe("a Telegram invoice at the end of its window", () => {
  it("a pre-checkout in the window's last minute is refused; before it, approved", async () => {
    await awaiting("p1");
    clock = WINDOW_ENDS - CLOSING_MS - 1_000;
    expect((await payments.check("p1", "NPR", 70_000, 7)).refusal).toBeNull();
    clock = WINDOW_ENDS - 5_000;
    expect((await payments.check("p1", "NPR", 70_000, 7)).refusal).toBe("payment-closing");
    clock = WINDOW_ENDS + 1;
    expect((await payments.check("p1", "NPR", 70_000, 7)).refusal).toBe("payment-expired");
  });

  it("ends 'not paid' only a grace after the window: a payment approved at its end may complete", async () => {
    await awaiting("p2");
    // The window is over, the grace is not: still awaited, nothing said, the invoice kept.
    clock = WINDOW_ENDS + 60_000;
    await payments.resolve(claim("p2"));
    expect((await store.get("p2"))?.phase).toBe("awaiting-payment");
    expect(told).toEqual([]);
    expect(withdrawn).toEqual([]);
    // The grace is over: ended, the invoice withdrawn, the buyer told.
    clock = WINDOW_ENDS + GRACE_MS + 1;
    await payments.resolve(claim("p2"));
    expect(await store.get("p2")).toMatchObject({ phase: "unpaid", reason: "expired" });
    expect(told.map((purchase) => purchase.phase)).toEqual(["unpaid"]);
    expect(withdrawn).toEqual(["p2"]);
  });
});
