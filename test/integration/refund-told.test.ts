// A refund marked done is told to its buyer once, whoever marks it (a person's /refunded, the
// payment system's API, eSewa's status check) and whatever this process still holds: the
// review of the teller's hold (findings 1 and 2), on a real PostgreSQL server and on PGlite.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { PurchaseBook } from "../../src/domain/purchase-book.js";
import { Reconciler } from "../../src/domain/reconciler.js";
import { RefundDesk } from "../../src/domain/refunds.js";
import { LEDGER_ENGINES, testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import { awaitingPurchaseOf, purchaseOf } from "../support/purchases.js";

describe.each(LEDGER_ENGINES)("a refund marked done on %s", (engine) => {
  const ledger = testLedger(engine, "refund_told");
  const { logger } = captureLogs();
  let store: LedgerPurchases;

  beforeAll(() => {
    store = new LedgerPurchases(ledger.connection, "review");
  });
  afterEach(async () => {
    await ledger.empty();
  });

  /** NPR 700 paid by card for the purchase, as Telegram confirms it (charge `ch-<n>`). */
  const cardPaid = (purchaseId: string, n: string, at: number) =>
    store.receivePayment(
      {
        method: "telegram",
        purchaseId,
        currency: "NPR",
        minor: 70_000,
        charge: { id: `ch-${n}`, providerId: `pc-${n}`, at },
      },
      1_000,
    );

  /** Every message the buyer got: the teller's outcome texts and the refund channel's. */
  function parts(book: PurchaseBook) {
    const said: string[] = [];
    const teller = new OutcomeTeller(
      book,
      { tell: async (purchase: Purchase) => void said.push(`outcome:${purchase.phase}`) },
      logger,
    );
    const desk = new RefundDesk(
      book,
      store,
      teller,
      {
        alertOperators: async () => undefined,
        tellBuyer: async (_refund, state) => void said.push(`refund-channel:${state}`),
      },
      async () => "owed",
      logger,
    );
    return { said, teller, desk };
  }

  describe("is told to its buyer, once", () => {
    it("a stray payment on a purchase already refunded: its refund is told", async () => {
      const now = Date.now();
      const payment = {
        method: "telegram" as const,
        currency: "NPR",
        minor: 70_000,
        expiresAt: now + 60_000,
        charge: { id: "ch-1", providerId: "pc-1", at: now - 1_000 },
      };
      // Its own payment was refunded (and told) before.
      await store.adopt(
        purchaseOf({
          id: "p-stray",
          phase: "refunded",
          told: "refunded",
          reason: "unavailable",
          transaction: null,
          payment,
        }),
        [],
      );
      // A second payment for it (a second invoice paid): it pays for nothing, owed back.
      const receipt = await cardPaid("p-stray", "2", now);
      expect(receipt.kind).toBe("stray");
      if (receipt.kind !== "stray") return;
      const { said, desk } = parts(new PurchaseBook(store, logger));
      const marked = await desk.markRefunded(receipt.refund.paymentId, "admin", null);
      expect(marked).not.toBeNull();
      // Said of the payment: its purchase, refunded and told before, is as it was.
      expect(said).toEqual(["refund-channel:refunded"]);
    });

    it("its refund-due 'told' write kept in memory (the ledger blipped): 'was refunded' told once", async () => {
      const now = Date.now();
      const opened = awaitingPurchaseOf({
        id: "p-wb",
        payment: { method: "telegram", currency: "NPR", minor: 70_000, expiresAt: now + 60_000 },
      });
      const created = await store.create(opened, 1_000);
      if (created.kind === "created") await created.lease.release();
      const receipt = await cardPaid("p-wb", "wb", now);
      if (receipt.kind !== "applied") throw new Error(receipt.kind);
      await receipt.claim.lease.release();
      // The top-up could not be made: owed back (the payment's refund falls due in the same write).
      const owed = (await store.get("p-wb")) as Purchase;
      owed.phase = "refund-due";
      owed.reason = "unavailable";
      await store.save(owed);
      // The ledger blips as the teller writes "told": that write is kept in memory.
      let failOnce = true;
      const flaky = new Proxy(store, {
        get(target, name, receiver) {
          if (name !== "save") return Reflect.get(target, name, receiver);
          return async (purchase: Purchase, dueAt?: number) => {
            if (failOnce && purchase.told === "refund-due") {
              failOnce = false;
              throw new Error("Connection terminated unexpectedly");
            }
            return target.save(purchase, dueAt);
          };
        },
      });
      const book = new PurchaseBook(flaky, logger, 60_000);
      const { said, teller, desk } = parts(book);
      await teller.tell((await book.get("p-wb")) as Purchase);
      expect(book.backlog).toBe(1);
      // The ledger is back; the refund is made (a person's /refunded, or the API) before the
      // write-behind's next try.
      const refund = await store.refundDueFor("p-wb");
      if (!refund) throw new Error("no refund due");
      await desk.markRefunded(refund.paymentId, "admin", null);
      // The kept write is tried again: stale now, dropped.
      await book.drain();
      // The next reconciliation pass tells what is untold.
      const reconciler = new Reconciler(
        book,
        { resolve: async (claim) => claim.lease.release() },
        teller,
        { intervalMs: 5_000, minDelayMs: 10, lockTtlMs: 1_000 },
        logger,
      );
      await reconciler.runOnce();
      const refundedTold = said.filter((line) => line.endsWith(":refunded"));
      // Once: not also said of the payment because this process's copy was the older refund-due.
      expect(refundedTold).toEqual(["outcome:refunded"]);
    });
  });
});
