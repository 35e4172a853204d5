// The money rules as a property (fast-check), over the real domain services and the real ledger:
// random sequences of taps, payments, duplicate and late confirmations, lookups, cancels,
// refusals, unknown and lost outcomes, lagging or unreachable txn-status, the clock moving on,
// restarts and staff marking refunds never give more than one top-up per purchase, never a
// refund of a purchase that was topped up, and always end money received in a top-up or a
// refund, once the outside world answers again. Payments also arrive on offers the payment
// system still takes after the bot ended their purchase: after Cancel, after a newer purchase
// of the same buyer, after the window; and every watched offer is closed in the end.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { TransportFailure } from "../../src/adapters/provider/transport.js";
import type { PackageOffer, Transaction } from "../../src/domain/model.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { PaymentJournal, PaymentSystem, ReceivedPayment } from "../../src/domain/payment.js";
import { PaymentService } from "../../src/domain/payment-service.js";
import type { ProviderPort } from "../../src/domain/ports.js";
import {
  ProviderRejectedError,
  ProviderUnavailableError,
  TopupOutcomeUnknownError,
} from "../../src/domain/provider-errors.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { PurchaseBook } from "../../src/domain/purchase-book.js";
import { Reconciler } from "../../src/domain/reconciler.js";
import { RefundDesk } from "../../src/domain/refunds.js";
import { type PurchaseIntent, TopupService } from "../../src/domain/topup.js";
import { testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import { quietAlarm } from "../support/purchases.js";

const TTL_MS = 300_000;
const MARGIN_MS = 30_000;
const WINDOW_MS = 600_000;
/** The payment system keeps an offer payable this long (as Khalti a link): past the window. */
const OFFER_MS = 1_800_000;
const PRICE_MINOR = 70_000;

type TopupMode = "ok" | "refuse" | "lost-after" | "lost-before" | "down";
type TxnMode = "honest" | "lagging" | "down";

/** What the outside world holds: the provider's top-ups and the wallet's payments. */
interface World {
  now: number;
  topupMode: TopupMode;
  txnMode: TxnMode;
  walletDown: boolean;
  tokens: number;
  /** Top-ups the provider executed, by checkout token. */
  executed: Map<string, { txnId: string; at: number }>;
  /** Payments buyers made at the payment system, by offer handle. */
  wallet: Map<string, { minor: number }>;
  /** Every offer the payment system made, by handle: whose, and until when it takes a payment. */
  offers: Map<string, { buyer: number; purchaseId: string; until: number }>;
  journal: ReceivedPayment[];
}

type Op =
  | { op: "confirm"; buyer: number; replay: boolean }
  | { op: "pay"; buyer: number; exact: boolean }
  | { op: "pay-late"; buyer: number; newest: boolean }
  | { op: "push"; buyer: number }
  | { op: "check"; buyer: number }
  | { op: "cancel"; buyer: number }
  | { op: "reconcile" }
  | { op: "topup-mode"; mode: TopupMode }
  | { op: "txn-mode"; mode: TxnMode }
  | { op: "wallet-down"; down: boolean }
  | { op: "tick"; ms: number }
  | { op: "restart" }
  | { op: "last-look"; buyer: number }
  | { op: "mark-refunded"; buyer: number };

const buyer = fc.constantFrom(1, 1, 2);
const topupMode = fc.constantFrom<TopupMode>("ok", "refuse", "lost-after", "lost-before", "down");
const txnMode = fc.constantFrom<TxnMode>("honest", "lagging", "down");
const ops: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("confirm"), buyer, replay: fc.boolean() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("pay"),
      buyer,
      exact: fc.constantFrom(true, true, false),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("pay-late"), buyer, newest: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("push"), buyer }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("check"), buyer }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("cancel"), buyer }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("reconcile") }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("topup-mode"), mode: topupMode }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("txn-mode"), mode: txnMode }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("wallet-down"), down: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("tick"),
      ms: fc.constantFrom(1_000, 60_000, 280_000, 400_000, 700_000),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("restart") }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("last-look"), buyer }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("mark-refunded"), buyer }) },
) as fc.Arbitrary<Op>;

/**
 * The provider as the domain sees it: a token is single-use and expires; a top-up answered
 * "lost" may or may not have been executed; txn-status may lag (by at most the safety margin:
 * a provider whose txn-status lags longer than a token lives cannot be told apart from one
 * that did nothing) or be unreachable.
 */
function providerOf(world: World): ProviderPort {
  const transaction = (checkoutId: string, txnId: string): Transaction => ({
    txnId,
    orderId: checkoutId,
    cuid: "1000001",
    connectionId: "stb1",
    bouquetCode: "GOLD",
    amount: "700",
    date: null,
    status: "success",
    service: "tv",
  });
  const execute = (checkoutId: string, issuedAt: number) => {
    if (world.executed.has(checkoutId) || world.now > issuedAt + TTL_MS) return null;
    const txnId = `T-${checkoutId}`;
    world.executed.set(checkoutId, { txnId, at: world.now });
    return txnId;
  };
  const issued = new Map<string, number>();
  return {
    getCustomer: () => Promise.reject(new Error("not used")),
    async getPackages(): Promise<PackageOffer> {
      if (world.topupMode === "down") {
        throw new ProviderUnavailableError("get-subscription-package", "HTTP 503");
      }
      const id = `co${++world.tokens}`;
      issued.set(id, world.now);
      return {
        checkout: { id, issuedAt: new Date(world.now) },
        customer: { cuid: "1000001", firstName: "A", lastName: "B", status: "active" },
        connection: { service: "tv", id: "stb1", status: "active" },
        subscriptions: [],
        bouquets: [BOUQUET],
      };
    },
    async topup(request) {
      const issuedAt = issued.get(request.checkoutId) ?? 0;
      switch (world.topupMode) {
        case "ok": {
          const txnId = execute(request.checkoutId, issuedAt);
          if (!txnId) throw new ProviderRejectedError("subscription-package-topup", "E", "", 200);
          return transaction(request.checkoutId, txnId);
        }
        case "refuse":
          throw new ProviderRejectedError("subscription-package-topup", "E", "", 200);
        case "lost-after":
          execute(request.checkoutId, issuedAt);
          throw new TopupOutcomeUnknownError(request.checkoutId, "timeout");
        case "lost-before":
          throw new TopupOutcomeUnknownError(request.checkoutId, "timeout");
        case "down":
          throw new TransportFailure("subscription-package-topup", "ECONNREFUSED", false);
      }
    },
    async txnStatus(checkoutId) {
      if (world.txnMode === "down") throw new ProviderUnavailableError("txn-status", "HTTP 502");
      const found = world.executed.get(checkoutId);
      const visible = found && (world.txnMode === "honest" || world.now >= found.at + MARGIN_MS);
      if (!found || !visible) throw new ProviderRejectedError("txn-status", "NF", "", 200);
      return transaction(checkoutId, found.txnId);
    },
  };
}

const BOUQUET = {
  code: "GOLD",
  name: "Gold (MONTHLY)",
  displayName: "Gold",
  price: "700",
  period: "monthly" as const,
  addOn: false,
};

/**
 * A payment system that must be asked (as Khalti): the wallet holds what buyers paid. It keeps
 * an offer payable until its own expiry, whatever the bot did (it cannot cancel a link).
 */
function paymentSystemOf(world: World): PaymentSystem {
  return {
    method: "khalti",
    async offer(purchase, record) {
      const handle = `pidx-${purchase.id}`;
      const until = world.now + OFFER_MS;
      world.offers.set(handle, { buyer: purchase.buyer, purchaseId: purchase.id, until });
      await record(handle, until);
      return { handle };
    },
    async withdraw() {},
    async lookup(purchase) {
      if (world.walletDown) throw new Error("the payment system is unreachable");
      const handle = purchase.payment?.offer ?? "";
      const paid = world.wallet.get(handle);
      if (paid) {
        return {
          state: "paid",
          minor: paid.minor,
          charge: { id: handle, providerId: `k-${handle}`, at: world.now },
        };
      }
      if (world.now > (world.offers.get(handle)?.until ?? 0)) {
        return { state: "ended", cancelled: false };
      }
      return { state: "waiting", pending: false };
    },
  };
}

/** The journal a process keeps on disk while the ledger is away: it outlives restarts. */
function journalOf(world: World): PaymentJournal {
  return {
    append: async (payment) => void world.journal.push(payment),
    read: async () => ({ payments: [...world.journal], quarantined: 0 }),
    settle: async (charges) => {
      world.journal = world.journal.filter((payment) => !charges.has(payment.charge.id));
    },
    setAside: async () => true,
  };
}

const { logger } = captureLogs();
const ledger = testLedger("PostgreSQL", "purchase_property", { poolSize: 4, log: logger });

/** The bot's money path, as one process builds it; a restart builds it again. */
function processOf(world: World) {
  // Time moves on between any two readings, as it does in a process.
  const clock = () => ++world.now;
  const store = new LedgerPurchases(ledger.connection, "property");
  const book = new PurchaseBook(store, logger);
  const teller = new OutcomeTeller(book, { tell: async () => undefined }, logger);
  const topups = new TopupService(
    providerOf(world),
    book,
    teller,
    {
      checkoutTtlMs: TTL_MS,
      checkoutSafetyMarginMs: MARGIN_MS,
      verifyWindowMs: 0,
      verifyFirstDelayMs: 1,
      verifyMaxDelayMs: 1,
      lockTtlMs: 5_000,
      recheckMaxMs: 60_000,
      paidRetryWindowMs: WINDOW_MS,
    },
    logger,
    clock,
  );
  const refunds = new RefundDesk(
    book,
    store,
    teller,
    { alertOperators: async () => undefined, tellBuyer: async () => undefined },
    (id) => topups.lastLook(id),
    logger,
  );
  const system = paymentSystemOf(world);
  const payments = new PaymentService(
    book,
    store,
    journalOf(world),
    topups,
    teller,
    new Map([[system.method, system]]),
    refunds,
    quietAlarm,
    () => true,
    {
      currency: "NPR",
      minorDigits: 2,
      windowMs: WINDOW_MS,
      lockTtlMs: 5_000,
      retryMs: 10,
      checkMs: 60_000,
    },
    logger,
    clock,
  );
  const reconciler = new Reconciler(
    book,
    payments,
    teller,
    { intervalMs: 1_000, minDelayMs: 10, lockTtlMs: 5_000 },
    logger,
    clock,
  );
  return { store, topups, refunds, payments, reconciler };
}

describe("the money rules, whatever happens in whatever order", () => {
  it("hold: at most one top-up, no refund after a top-up, money received ends in one or the other, late or not", async () => {
    let runs = 0;
    /** Purchases paid after they had ended unpaid, over every run: the late path was taken. */
    let paidLate = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({ topupMode, txnMode }),
        fc.array(ops, { minLength: 5, maxLength: 30 }),
        async (start, sequence) => {
          runs++;
          await ledger.empty();
          const world: World = {
            // The ledger's own clock (leases, "due now") never runs ahead of the world's.
            now: Date.now(),
            ...start,
            walletDown: false,
            tokens: runs * 1_000,
            executed: new Map(),
            wallet: new Map(),
            offers: new Map(),
            journal: [],
          };
          let bot = processOf(world);
          const intents = new Map<number, string>();
          let made = 0;
          const latest = async (who: number): Promise<Purchase | null> =>
            (await bot.store.ofBuyer(who, 1))[0] ?? null;

          const apply = async (step: Op) => {
            switch (step.op) {
              case "confirm": {
                const replayed = step.replay ? intents.get(step.buyer) : undefined;
                const id = replayed ?? `r${runs}-i${++made}`;
                intents.set(step.buyer, id);
                await bot.payments.open(intentOf(id, step.buyer, world.now));
                return;
              }
              case "pay": {
                // A buyer pays only an offer the chat still shows, and only while it is valid.
                const purchase = (await bot.store.awaitingPayment(step.buyer)).at(-1);
                const handle = purchase?.payment?.offer;
                if (!purchase?.payment || !handle || world.wallet.has(handle)) return;
                if (world.now > purchase.payment.expiresAt) return;
                world.wallet.set(handle, { minor: step.exact ? PRICE_MINOR : PRICE_MINOR + 100 });
                return;
              }
              case "pay-late": {
                // An offer the system still takes, of a purchase the bot ended (cancelled,
                // replaced by a newer one, its window over): the buyer pays it all the same.
                const ended = new Set(
                  (await bot.store.ofBuyer(step.buyer, 100))
                    .filter((purchase) => purchase.phase === "unpaid")
                    .map((purchase) => purchase.id),
                );
                const open = [...world.offers]
                  .filter(
                    ([handle, offer]) => offer.buyer === step.buyer && !world.wallet.has(handle),
                  )
                  .filter(([, offer]) => world.now <= offer.until && ended.has(offer.purchaseId));
                const chosen = step.newest ? open.at(-1) : open[0];
                if (chosen) world.wallet.set(chosen[0], { minor: PRICE_MINOR });
                return;
              }
              case "push": {
                // A confirmation pushed to the bot (a return page, a duplicate, a late one).
                const purchase = await latest(step.buyer);
                const handle = purchase?.payment?.offer;
                const paid = handle ? world.wallet.get(handle) : undefined;
                if (!purchase || !handle || !paid) return;
                await bot.payments.receive({
                  method: "khalti",
                  purchaseId: purchase.id,
                  currency: "NPR",
                  minor: paid.minor,
                  charge: { id: handle, providerId: `k-${handle}`, at: world.now },
                });
                return;
              }
              case "check": {
                const purchase = await latest(step.buyer);
                if (purchase) await bot.payments.checkNow(purchase.id);
                return;
              }
              case "cancel":
                await bot.payments.cancel(step.buyer);
                return;
              case "reconcile":
                await bot.reconciler.runOnce();
                await bot.payments.lookWatched();
                return;
              case "topup-mode":
                world.topupMode = step.mode;
                return;
              case "txn-mode":
                world.txnMode = step.mode;
                return;
              case "wallet-down":
                world.walletDown = step.down;
                return;
              case "tick":
                world.now += step.ms;
                return;
              case "restart":
                await bot.payments.drain();
                bot = processOf(world);
                return;
              case "last-look": {
                const purchase = await latest(step.buyer);
                if (purchase) await bot.topups.lastLook(purchase.id);
                return;
              }
              case "mark-refunded": {
                const purchase = await latest(step.buyer);
                // Staff refund only what the desk lists, after its last look.
                if (purchase?.phase !== "refund-due") return;
                if ((await bot.topups.lastLook(purchase.id)) !== "owed") return;
                const owed = await ledger.connection.db
                  .selectFrom("payments")
                  .select("id")
                  .where("purchase_id", "=", purchase.id)
                  .where("applied", "=", true)
                  .where("refund", "=", "due")
                  .executeTakeFirst();
                if (owed) await bot.refunds.markRefunded(String(owed.id), "staff", null);
                return;
              }
            }
          };

          for (const step of sequence) {
            await apply(step);
            await bot.payments.drain();
          }
          // The outside world answers again, and time passes: every window and token runs out.
          Object.assign(world, { topupMode: "ok", txnMode: "honest", walletDown: false });
          for (let pass = 0; pass < 6; pass++) {
            world.now += WINDOW_MS + TTL_MS;
            await bot.reconciler.runOnce();
            for (let look = 0; look < 3; look++) await bot.payments.lookWatched();
            await bot.payments.drain();
          }
          await assertMoneyRules(world);
          const late = await ledger.db
            .selectFrom("purchase_events")
            .select("purchase_id")
            .where("from_phase", "=", "unpaid")
            .where("to_phase", "=", "paid")
            .execute();
          paidLate += late.length;
        },
      ),
      { numRuns: 250, endOnFailure: true },
    );
    expect(paidLate).toBeGreaterThan(0);
  }, 180_000);
});

function intentOf(id: string, buyer: number, now: number): PurchaseIntent {
  return {
    intentId: id,
    buyer,
    language: "en",
    customer: { cuid: "1000001", firstName: "A", lastName: "B", status: "active" },
    connection: { service: "tv", id: "stb1", status: "active" },
    bouquet: BOUQUET,
    checkout: { id: `listed-${id}`, issuedAt: new Date(now) },
  };
}

async function assertMoneyRules(world: World): Promise<void> {
  // Past every offer's expiry and its last look, nothing is watched any more.
  const watched = await ledger.db
    .selectFrom("payment_offers")
    .select("handle")
    .where("withdrawn_at", "is not", null)
    .where("closed_at", "is", null)
    .execute();
  expect(watched.map((offer) => offer.handle)).toEqual([]);
  const purchases = await ledger.db.selectFrom("purchases").selectAll().execute();
  const checkouts = await ledger.db.selectFrom("purchase_checkouts").selectAll().execute();
  const payments = await ledger.db.selectFrom("payments").selectAll().execute();
  const executedOf = (purchaseId: string) =>
    checkouts.filter((c) => c.purchase_id === purchaseId && world.executed.has(c.checkout_id));
  // Every top-up the provider executed belongs to a purchase of the ledger.
  const known = new Set(checkouts.map((c) => c.checkout_id));
  for (const token of world.executed.keys()) expect(known.has(token)).toBe(true);

  for (const row of purchases) {
    const executed = executedOf(row.id);
    const state = `${row.id}: ${row.phase}, ${executed.length} top-up(s)`;
    expect(executed.length, state).toBeLessThanOrEqual(1);
    // Settled: nothing is left open once the world answers and every window has passed.
    expect(["charged", "unpaid", "refund-due", "refunded"], state).toContain(row.phase);
    if (row.phase === "charged") {
      expect(executed.length, state).toBe(1);
      expect(row.txn_id, state).toBe(world.executed.get(executed[0]?.checkout_id ?? "")?.txnId);
      expect(row.payment_charge_id, state).not.toBeNull();
    } else {
      // Not charged, owed back or refunded: the provider executed nothing for it.
      expect(executed.length, state).toBe(0);
    }
    if (row.phase === "unpaid") expect(row.payment_charge_id, state).toBeNull();
  }
  // Money received: every payment a buyer made is in the ledger, and ends in a top-up or a refund.
  for (const [handle] of world.wallet) {
    const payment = payments.find((p) => p.charge_id === handle);
    expect(payment, `payment ${handle}`).toBeDefined();
    const purchase = purchases.find((p) => p.id === payment?.purchase_id);
    if (payment?.applied) {
      expect(["charged", "refund-due", "refunded"]).toContain(purchase?.phase);
      expect(payment.refund).toBe(
        purchase?.phase === "charged"
          ? "none"
          : purchase?.phase === "refunded"
            ? "refunded"
            : "due",
      );
    } else {
      expect(["due", "refunded"]).toContain(payment?.refund);
    }
  }
}
