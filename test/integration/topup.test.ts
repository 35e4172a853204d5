// The purchase service over real HTTP (the sandbox) and a real PostgreSQL ledger: exactly
// once, verified, and finished by reconciliation when its process went away.

import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { ProviderClient } from "../../src/adapters/provider/client.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { PurchaseBook } from "../../src/domain/purchase-book.js";
import { Reconciler } from "../../src/domain/reconciler.js";
import {
  type PurchaseIntent,
  type PurchaseOutcome,
  TopupService,
  type TopupServiceOptions,
} from "../../src/domain/topup.js";
import { createSandbox, type Sandbox } from "../../tools/sandbox/server.js";
import { testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import { until } from "../support/wait.js";

const TOKEN = "topup-test-token";
const logger = captureLogs().logger;
const ledger = testLedger("PostgreSQL", "topup", { log: logger });
let purchases: LedgerPurchases;
let book: PurchaseBook;
/** What the buyers were told: "<phase>:<reason>" per purchase. */
let told: string[] = [];
let teller: OutcomeTeller;
let sandbox: Sandbox;
let client: ProviderClient;
let intents = 0;

const options: TopupServiceOptions = {
  checkoutTtlMs: 300_000,
  checkoutSafetyMarginMs: 30_000,
  verifyWindowMs: 600,
  paidRetryWindowMs: 0,
  verifyFirstDelayMs: 50,
  verifyMaxDelayMs: 200,
  lockTtlMs: 2_000,
  recheckMaxMs: 1_000,
};

beforeAll(async () => {
  purchases = new LedgerPurchases(ledger.connection, "test");
  book = new PurchaseBook(purchases, logger);
  teller = new OutcomeTeller(
    book,
    { tell: async (p) => void told.push(p.reason ? `${p.phase}:${p.reason}` : p.phase) },
    logger,
  );
  sandbox = await createSandbox({ token: TOKEN });
  client = new ProviderClient({
    baseUrl: sandbox.baseUrl(),
    version: "v1.0.1",
    token: TOKEN,
    timeoutMs: 300,
    readRetries: 0,
    timeZone: "UTC",
    logger,
  });
});
afterEach(async () => {
  sandbox.reset();
  told = [];
  await ledger.empty();
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

/** Open purchases due by `at` whose lease is free, as reconciliation would find them. */
const dueIds = async (at: number) =>
  (
    await ledger.db
      .selectFrom("purchases")
      .select("id")
      .where("due_at", "<=", new Date(at))
      .where(sql<boolean>`(lease_until IS NULL OR lease_until <= now())`)
      .execute()
  ).map((row) => row.id);
const untoldIds = async () =>
  (
    await ledger.db
      .selectFrom("purchases")
      .select("id")
      .where("phase", "in", ["charged", "not-charged", "unknown"])
      .where(sql<boolean>`told IS DISTINCT FROM phase`)
      .execute()
  ).map((row) => row.id);
/** Makes an open purchase due at once, as if its next check had come. */
const makeDue = (id: string) =>
  ledger.db
    .updateTable("purchases")
    .set({ due_at: new Date(0) })
    .where("id", "=", id)
    .execute();

const service = (overrides: Partial<TopupServiceOptions> = {}) =>
  new TopupService(client, book, teller, { ...options, ...overrides }, logger);

/** "charged", "not-charged" or "unknown" for a settled purchase, else the outcome's kind. */
const resultOf = (outcome: PurchaseOutcome) =>
  outcome.kind === "settled" ? outcome.purchase.phase : outcome.kind;
const recorded = (outcome: PurchaseOutcome): Purchase => {
  if (outcome.kind !== "settled") throw new Error(`not settled: ${outcome.kind}`);
  return outcome.purchase;
};
const topupRequests = () =>
  sandbox.requests.filter((r) => r.operation === "subscription-package-topup");

async function intentFor(code = "1000001", buyer = 500): Promise<PurchaseIntent> {
  const info = await client.getCustomer(code);
  const connection = info.connections[0];
  if (!connection) throw new Error("no connection");
  const offer = await client.getPackages(info.customer.cuid, connection);
  const bouquet = offer.bouquets[3];
  if (!bouquet) throw new Error("no bouquet");
  intents++;
  return {
    intentId: `intent-${intents}`,
    buyer,
    language: "en",
    customer: info.customer,
    connection,
    bouquet,
    checkout: offer.checkout,
  };
}

describe("TopupService.purchase", () => {
  it("records each phase, tops up once, verifies with txn-status and tells the receipt", async () => {
    const intent = await intentFor();
    const outcome = await service().purchase(intent);
    const purchase = recorded(outcome);
    expect(purchase).toMatchObject({ phase: "charged", told: "charged", attempt: 1 });
    expect(purchase.transaction?.txnId).toBe(sandbox.topups[0]?.txnId);
    expect(purchase.transaction?.amount).toBe(intent.bouquet.price);
    expect(sandbox.topups).toHaveLength(1);
    expect(sandbox.topups[0]?.udf1).toBe(purchase.reference);
    expect(purchase.reference?.length).toBeLessThanOrEqual(30);
    expect(sandbox.requests.map((r) => r.operation).slice(-2)).toEqual([
      "subscription-package-topup",
      "txn-status",
    ]);
    expect(await purchases.get(intent.intentId)).toMatchObject({ phase: "charged" });
    expect(await purchases.byReference(purchase.reference ?? "")).toMatchObject({
      id: purchase.id,
    });
    expect(await purchases.byCheckout(intent.checkout.id)).toMatchObject({ id: purchase.id });
    expect(await dueIds(Date.now() + 60_000)).toEqual([]);
    expect(await untoldIds()).toEqual([]);
    expect(told).toEqual(["charged"]);
  });

  it("sends the price exactly as listed", async () => {
    const intent = await intentFor();
    await service().purchase({ ...intent, bouquet: { ...intent.bouquet, price: "700.00" } });
    expect(topupRequests()[0]?.body).toMatchObject({ amt: "700.00" });
  });

  it("executes one top-up for ten simultaneous confirmations of the same intent", async () => {
    const intent = await intentFor();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => service().purchase(intent)),
    );
    expect(outcomes.filter((o) => resultOf(o) === "charged")).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === "duplicate")).toHaveLength(9);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("refuses a second purchase of the same buyer while one is in flight", async () => {
    sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 150, times: 1 });
    const first = await intentFor("1000001", 600);
    const second = await intentFor("1000003", 600);
    const [a, b] = await Promise.all([service().purchase(first), service().purchase(second)]);
    expect([resultOf(a), resultOf(b)].sort()).toEqual(["busy", "charged"]);
    expect(sandbox.topups).toHaveLength(1);
    // The refused intent can be confirmed again once the buyer is free.
    const retry = await service().purchase(b.kind === "busy" ? second : first);
    expect(resultOf(retry)).toBe("charged");
  });

  it("a paid purchase whose buyer has another in flight waits its turn, still paid, then tops up", async () => {
    // A payment found late for one purchase while the buyer's other purchase is being topped up.
    sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 300, times: 1 });
    const other = service().purchase(await intentFor("1000001", 650));
    const paidIntent = await intentFor("1000003", 650);
    const paid = service().newPurchase(paidIntent);
    paid.phase = "awaiting-payment";
    paid.payment = { method: "telegram", currency: "NPR", minor: 70_000, expiresAt: Date.now() };
    const created = await purchases.create(paid, 1_000);
    if (created.kind === "created") await created.lease.release();
    const receipt = await purchases.receivePayment(
      {
        method: "telegram",
        purchaseId: paid.id,
        currency: "NPR",
        minor: 70_000,
        charge: { id: "late-1", providerId: null, at: Date.now() },
      },
      2_000,
    );
    if (receipt.kind !== "applied") throw new Error(receipt.kind);
    await until(async () => topupRequests().length === 1, 2_000);
    const waited = Date.now();
    await service().resolve(receipt.claim);
    const waiting = await purchases.get(paid.id);
    expect(waiting).toMatchObject({ phase: "paid", checkout: null });
    // Due again in a few seconds, not at once (no spin), and not owed back.
    expect(await dueIds(waited + 1_000)).not.toContain(paid.id);
    expect(await dueIds(waited + 10_000)).toContain(paid.id);
    expect(resultOf(await other)).toBe("charged");
    await makeDue(paid.id);
    const claim = await purchases.claimDue(Date.now(), 2_000);
    if (!claim) throw new Error("not claimed");
    await service().resolve(claim);
    expect(await purchases.get(paid.id)).toMatchObject({ phase: "charged", told: "charged" });
    expect(sandbox.topups).toHaveLength(2);
  });

  it("an old token is replaced before use without asking the user", async () => {
    const intent = await intentFor();
    const stale = {
      ...intent,
      checkout: { ...intent.checkout, issuedAt: new Date(Date.now() - 280_000) },
    };
    expect(resultOf(await service().purchase(stale))).toBe("charged");
    expect(sandbox.topups).toHaveLength(1);
    expect(sandbox.topups[0]?.orderId).not.toBe(intent.checkout.id);
  });

  it("asks again instead of buying when the price or the name changed", async () => {
    for (const change of ["price", "name"] as const) {
      const intent = await intentFor();
      sandbox.setFault("get-subscription-package", {
        kind: "transform",
        transform: (response) => {
          const body = response.body as {
            tv: { bouquets: { code: string; name: string; price: number }[] };
          };
          for (const b of body.tv.bouquets) {
            if (b.code !== intent.bouquet.code) continue;
            if (change === "price") b.price += 10;
            else b.name = `New ${b.name}`;
          }
          return response;
        },
      });
      const stale = { ...intent, checkout: { ...intent.checkout, issuedAt: new Date(0) } };
      const outcome = await service().purchase(stale);
      expect(outcome.kind).toBe("offer-changed");
      if (outcome.kind === "offer-changed") {
        expect(outcome.purchase).toMatchObject({ phase: "not-charged", reason: "offer-changed" });
        expect(outcome.purchase.told).toBe("not-charged");
      }
      sandbox.clearFaults();
    }
    expect(sandbox.topups).toHaveLength(0);
    expect(told).toEqual([]);
  });

  it.each([
    ["a refusal with any code", { kind: "reject", code: "E1009", times: 1 }],
    [
      "a refusal with an empty code and message",
      { kind: "reject", code: "", message: "", times: 1 },
    ],
  ] as const)(
    "%s: checks txn-status, then tries once more with a fresh token",
    async (_, fault) => {
      const intent = await intentFor();
      sandbox.setFault("subscription-package-topup", fault);
      const purchase = recorded(await service().purchase(intent));
      expect(purchase).toMatchObject({ phase: "charged", attempt: 2 });
      // The refused token stays bound to this purchase: it can never serve another one.
      expect(purchase.checkout?.id).not.toBe(intent.checkout.id);
      expect((await purchases.byCheckout(intent.checkout.id))?.id).toBe(purchase.id);
      expect(sandbox.topups).toHaveLength(1);
      const operations = sandbox.requests.map((r) => r.operation);
      expect(operations.filter((op) => op === "subscription-package-topup")).toHaveLength(2);
      // txn-status checked the refused token before a new one was fetched.
      const refusedAt = operations.indexOf("subscription-package-topup");
      expect(operations.slice(refusedAt + 1, refusedAt + 3)).toEqual([
        "txn-status",
        "get-subscription-package",
      ]);
    },
  );

  it("a second refusal is a decline, told with the provider's code", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "reject", code: "LIMIT_REACHED" });
    const purchase = recorded(await service().purchase(intent));
    expect(purchase).toMatchObject({
      phase: "not-charged",
      reason: "declined",
      refusal: { code: "LIMIT_REACHED" },
    });
    expect(topupRequests()).toHaveLength(2);
    expect(told).toEqual(["not-charged:declined"]);
  });

  it("resolves a timed-out top-up that happened with txn-status, never calling top-up again", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 1_000 });
    let checking = 0;
    const outcome = await service().purchase(intent, { onChecking: () => void checking++ });
    expect(resultOf(outcome)).toBe("charged");
    expect(checking).toBe(1);
    expect(sandbox.topups).toHaveLength(1);
    expect(topupRequests()).toHaveLength(1);
  });

  it("says nothing was charged once txn-status shows nothing happened and the token expired", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "http-502" });
    const old = {
      ...intent,
      checkout: { ...intent.checkout, issuedAt: new Date(Date.now() - 100) },
    };
    const outcome = await service({ checkoutTtlMs: 50, checkoutSafetyMarginMs: 0 }).purchase(old);
    expect(recorded(outcome)).toMatchObject({ phase: "not-charged", reason: "verified" });
    expect(sandbox.topups).toHaveLength(0);
  });

  it("leaves the purchase unknown, due again, when the provider cannot be asked at all", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "connection-reset", afterEffect: true });
    sandbox.setFault("txn-status", { kind: "http-500" });
    const outcome = await service().purchase(intent);
    expect(recorded(outcome)).toMatchObject({ phase: "unknown", told: "unknown" });
    expect(await dueIds(Date.now() + 2_000)).toEqual([intent.intentId]);
    expect(told).toEqual(["unknown"]);
  });
});

describe("Reconciler", () => {
  const reconciler = (topups = service()) =>
    new Reconciler(
      book,
      topups,
      teller,
      { intervalMs: 60_000, minDelayMs: 50, lockTtlMs: 2_000 },
      logger,
    );

  it("resolves what a dead process left and tells it once", async () => {
    const intent = await intentFor();
    // The process "dies" after the top-up reached the provider: it never answered.
    sandbox.setFault("subscription-package-topup", { kind: "connection-reset", afterEffect: true });
    sandbox.setFault("txn-status", { kind: "http-500" });
    await service().purchase(intent);
    sandbox.clearFaults();
    told = [];
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await reconciler().runOnce()).toBe(1);
    expect(told).toEqual(["charged"]);
    expect(await reconciler().runOnce()).toBe(0);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("takes a purchase whose holder died as soon as its lease lapses, whatever its age", async () => {
    const intent = await intentFor();
    const done = recorded(await service().purchase(intent));
    // As a crash leaves it (written as a row of its own: the ledger lets nothing leave
    // "charged"): requested, lease taken and never released.
    const purchase = { ...done, id: `${done.id}-crashed`, reference: null };
    await purchases.adopt({ ...purchase, phase: "requested", told: null, transaction: null }, []);
    await ledger.db
      .updateTable("purchases")
      .set({ lease_owner: "a dead instance", lease_until: sql`now() + interval '500 ms'` })
      .where("id", "=", purchase.id)
      .execute();
    expect(await dueIds(Date.now())).toEqual([]);
    const dueAt = await purchases.nextDue();
    expect(dueAt).toBeGreaterThan(Date.now());
    expect(dueAt).toBeLessThanOrEqual(Date.now() + 500);
    // The holder is gone: its lease is not renewed, and lapses.
    await new Promise((resolve) => setTimeout(resolve, (dueAt ?? 0) - Date.now() + 10));
    told = [];
    expect(await reconciler().runOnce()).toBe(1);
    expect(told).toEqual(["charged"]);
  });

  it("declares an unknown purchase not charged once its token has expired", async () => {
    const intent = await intentFor();
    const old = {
      ...intent,
      checkout: { ...intent.checkout, issuedAt: new Date(Date.now() - 100) },
    };
    sandbox.setFault("subscription-package-topup", { kind: "connection-reset" });
    sandbox.setFault("txn-status", { kind: "http-500" });
    await service({ checkoutTtlMs: 60_000, checkoutSafetyMarginMs: 0 }).purchase(old);
    sandbox.clearFaults();
    await makeDue(intent.intentId);
    told = [];
    // Still within the token's validity: it could yet happen, so it stays open.
    await reconciler(service({ checkoutTtlMs: 60_000, checkoutSafetyMarginMs: 0 })).runOnce();
    expect(await purchases.get(intent.intentId)).toMatchObject({ phase: "unknown" });
    await makeDue(intent.intentId);
    await reconciler(service({ checkoutTtlMs: 50, checkoutSafetyMarginMs: 0 })).runOnce();
    expect(told).toEqual(["not-charged:verified"]);
  });

  it("the last look before any refund on a purchase: never while a top-up of it is under way or unknown", async () => {
    const intent = await intentFor();
    const done = recorded(await service().purchase(intent));
    // Topped up: a stray payment on it pays for nothing and is owed back.
    expect(await service().lastLook(done.id)).toBe("owed");
    for (const [n, phase] of (["token-taken", "requested", "unknown"] as const).entries()) {
      // Each its own buyer: one purchase in flight per buyer.
      const open = { ...done, id: `${done.id}-${phase}`, buyer: done.buyer + n + 1, phase };
      await purchases.adopt({ ...open, reference: null, told: null, transaction: null }, []);
      expect(await service().lastLook(open.id)).toBe("unknown");
    }
    // No purchase to look at: nothing stands in the refund's way.
    expect(await service().lastLook("no-such-purchase")).toBe("owed");
    expect(sandbox.topups).toHaveLength(1);
  });

  it("skips a purchase that is still being handled", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 300 });
    const purchase = service().purchase(intent);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await purchases.claimDue(Date.now() + 60_000, 1_000)).toBeNull();
    expect(await purchases.get(intent.intentId)).toMatchObject({ phase: "requested" });
    expect(resultOf(await purchase)).toBe("charged");
  });

  it("writes the renewed end before the receipt goes out: its Remind me reads it at once", async () => {
    const seen: unknown[] = [];
    const reading = new OutcomeTeller(
      book,
      { tell: async (p) => void seen.push((await purchases.get(p.id))?.renewedUntil) },
      logger,
      { provider: client },
    );
    const intent = await intentFor();
    await new TopupService(client, book, reading, options, logger).purchase(intent);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(expect.objectContaining({ at: expect.any(Number) }));
  });

  it("tells an outcome whose telling failed, on its next pass", async () => {
    const failing = new OutcomeTeller(
      book,
      {
        tell: async () => {
          throw new Error("Telegram is down");
        },
      },
      logger,
    );
    const intent = await intentFor();
    const topups = new TopupService(client, book, failing, options, logger);
    await topups.purchase(intent);
    expect(await untoldIds()).toEqual([intent.intentId]);
    expect(await reconciler().runOnce()).toBe(1);
    expect(told).toEqual(["charged"]);
    expect(await untoldIds()).toEqual([]);
  });
});
