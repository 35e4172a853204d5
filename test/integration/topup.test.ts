import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProviderClient } from "../../src/adapters/provider/client.js";
import { RedisJournal } from "../../src/adapters/redis/journal.js";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisPurchaseGuards } from "../../src/adapters/redis/purchase-guards.js";
import type { JournalEntry } from "../../src/domain/journal.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import { Reconciler } from "../../src/domain/reconciler.js";
import {
  type PurchaseIntent,
  type PurchaseOutcome,
  TopupService,
  type TopupServiceOptions,
} from "../../src/domain/topup.js";
import { createSandbox, type Sandbox } from "../../tools/sandbox/server.js";
import { captureLogs } from "../support/log-capture.js";
import { deleteByPrefix, testRedis } from "../support/redis.js";

const TOKEN = "topup-test-token";
const store = testRedis("topup");
const keys = redisKeys(store.prefix);
const journal = new RedisJournal(store.redis, keys);
const guards = new RedisPurchaseGuards(store.redis, keys);
const logger = captureLogs().logger;
let sandbox: Sandbox;
let client: ProviderClient;
let intents = 0;

const options: TopupServiceOptions = {
  checkoutTtlMs: 300_000,
  checkoutSafetyMarginMs: 30_000,
  verifyWindowMs: 600,
  verifyFirstDelayMs: 50,
  verifyMaxDelayMs: 200,
  lockTtlMs: 2_000,
};

beforeAll(async () => {
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
  await deleteByPrefix(store.redis, store.prefix);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
  await store.cleanup();
});

const service = (overrides: Partial<TopupServiceOptions> = {}) =>
  new TopupService(client, journal, guards, { ...options, ...overrides }, logger);

/** "done", "not-charged" or "failed" for a settled purchase, else the outcome's kind. */
const resultOf = (outcome: PurchaseOutcome) =>
  outcome.kind === "settled" ? outcome.entry.state : outcome.kind;

/** A teller that records what it would have told. */
const recordingTeller = (told: string[], describe: (e: JournalEntry) => string = (e) => e.state) =>
  new OutcomeTeller(journal, { tell: async (entry) => void told.push(describe(entry)) }, logger);

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
  it("tops up once, verifies with txn-status and journals the result", async () => {
    const intent = await intentFor();
    const outcome = await service().purchase(intent);
    expect(resultOf(outcome)).toBe("done");
    if (outcome.kind !== "settled") return;
    expect(outcome.entry.transaction?.txnId).toBe(sandbox.topups[0]?.txnId);
    expect(sandbox.topups).toHaveLength(1);
    expect(sandbox.topups[0]?.udf1).toBe(outcome.entry.reference);
    expect(outcome.entry.reference.length).toBeLessThanOrEqual(30);
    expect(sandbox.requests.map((r) => r.operation).slice(-2)).toEqual([
      "subscription-package-topup",
      "txn-status",
    ]);
    expect(await journal.byReference(outcome.entry.reference)).toMatchObject({ state: "done" });
    expect(await journal.pendingSince(Date.now())).toEqual([]);
  });

  it("executes one top-up for ten simultaneous confirmations of the same intent", async () => {
    const intent = await intentFor();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => service().purchase(intent)),
    );
    expect(outcomes.filter((o) => resultOf(o) === "done")).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === "duplicate")).toHaveLength(9);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("lets two service instances (two bots) race without a second top-up", async () => {
    const intent = await intentFor();
    const [a, b] = await Promise.all([service().purchase(intent), service().purchase(intent)]);
    expect([resultOf(a), resultOf(b)].sort()).toEqual(["done", "duplicate"]);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("refuses a second purchase of the same buyer while one is in flight", async () => {
    sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 150, times: 1 });
    const first = await intentFor("1000001", 600);
    const second = await intentFor("1000003", 600);
    const [a, b] = await Promise.all([service().purchase(first), service().purchase(second)]);
    expect([resultOf(a), resultOf(b)].sort()).toEqual(["busy", "done"]);
    expect(sandbox.topups).toHaveLength(1);
    // The refused intent can be confirmed again once the buyer is free.
    const retry = await service().purchase(b.kind === "busy" ? second : first);
    expect(resultOf(retry)).toBe("done");
  });

  it("an old token is replaced before use without asking the user", async () => {
    const intent = await intentFor();
    const stale = {
      ...intent,
      checkout: { ...intent.checkout, issuedAt: new Date(Date.now() - 280_000) },
    };
    const outcome = await service().purchase(stale);
    expect(resultOf(outcome)).toBe("done");
    expect(sandbox.topups).toHaveLength(1);
    expect(sandbox.topups[0]?.orderId).not.toBe(intent.checkout.id);
  });

  it("reports a changed price instead of buying", async () => {
    const intent = await intentFor();
    sandbox.setFault("get-subscription-package", {
      kind: "transform",
      transform: (response) => {
        const body = response.body as { tv: { bouquets: { code: string; price: number }[] } };
        for (const b of body.tv.bouquets) if (b.code === intent.bouquet.code) b.price += 10;
        return response;
      },
    });
    const stale = { ...intent, checkout: { ...intent.checkout, issuedAt: new Date(0) } };
    const outcome = await service().purchase(stale);
    expect(outcome.kind).toBe("price-changed");
    if (outcome.kind === "price-changed")
      expect(outcome.bouquet.price).toBe(intent.bouquet.price + 10);
    expect(sandbox.topups).toHaveLength(0);
  });

  it("replaces a refused token once, after checking nothing happened", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", {
      kind: "reject",
      code: "CHECKOUT_EXPIRED",
      times: 1,
    });
    const outcome = await service().purchase(intent);
    expect(resultOf(outcome)).toBe("done");
    expect(sandbox.topups).toHaveLength(1);
    const operations = sandbox.requests.map((r) => r.operation);
    expect(operations.filter((op) => op === "subscription-package-topup")).toHaveLength(2);
    // txn-status checked the refused token before a new one was fetched.
    const refusedAt = operations.indexOf("subscription-package-topup");
    expect(operations.slice(refusedAt + 1, refusedAt + 3)).toEqual([
      "txn-status",
      "get-subscription-package",
    ]);
  });

  it("gives up with the provider's code on a refusal that is not about the token", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "reject", code: "LIMIT_REACHED" });
    const outcome = await service().purchase(intent);
    expect(resultOf(outcome)).toBe("failed");
    if (outcome.kind === "settled") {
      expect(outcome.entry.failure).toEqual({ kind: "rejected", code: "LIMIT_REACHED" });
    }
    expect(
      sandbox.requests.filter((r) => r.operation === "subscription-package-topup"),
    ).toHaveLength(1);
  });

  it("resolves a timed-out top-up that happened with txn-status, never calling top-up again", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 1_000 });
    let told = 0;
    const outcome = await service().purchase(intent, { onChecking: () => void told++ });
    expect(resultOf(outcome)).toBe("done");
    expect(told).toBe(1);
    expect(sandbox.topups).toHaveLength(1);
    expect(
      sandbox.requests.filter((r) => r.operation === "subscription-package-topup"),
    ).toHaveLength(1);
  });

  it("says nothing was charged when the unknown outcome turns out to be nothing", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "http-502" });
    const outcome = await service().purchase(intent);
    expect(resultOf(outcome)).toBe("not-charged");
    expect(sandbox.topups).toHaveLength(0);
    expect(await journal.get(intent.checkout.id)).toMatchObject({ state: "not-charged" });
  });

  it("leaves the entry pending when the provider cannot be asked at all", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "connection-reset", afterEffect: true });
    sandbox.setFault("txn-status", { kind: "http-500" });
    const outcome = await service().purchase(intent);
    expect(outcome.kind).toBe("still-checking");
    expect(await journal.pendingSince(Date.now())).toEqual([intent.checkout.id]);
  });
});

describe("Reconciler", () => {
  it("resolves what a dead process left pending and tells it once", async () => {
    const intent = await intentFor();
    // The process "dies" after the top-up reached the provider: it never answered.
    sandbox.setFault("subscription-package-topup", { kind: "connection-reset", afterEffect: true });
    sandbox.setFault("txn-status", { kind: "http-500" });
    await service().purchase(intent);
    sandbox.clearFaults();

    const told: string[] = [];
    const reconciler = new Reconciler(
      journal,
      service(),
      recordingTeller(told, (entry) => `${entry.state}:${entry.checkoutId}`),
      { intervalMs: 60_000, staleAfterMs: 0 },
      logger,
    );
    expect(await reconciler.runOnce()).toBe(1);
    expect(told).toEqual([`done:${intent.checkout.id}`]);
    expect(await reconciler.runOnce()).toBe(0);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("declares an expired, unknown top-up not charged", async () => {
    const intent = await intentFor();
    const old = {
      ...intent,
      checkout: { ...intent.checkout, issuedAt: new Date(Date.now() - 100) },
    };
    sandbox.setFault("subscription-package-topup", { kind: "connection-reset" });
    sandbox.setFault("txn-status", { kind: "http-500" });
    await service({ checkoutTtlMs: 60_000, checkoutSafetyMarginMs: 0 }).purchase(old);
    sandbox.clearFaults();
    const told: string[] = [];
    const teller = recordingTeller(told);
    const young = service({ checkoutTtlMs: 60_000, checkoutSafetyMarginMs: 0 });
    const reconcile = (topups: TopupService) =>
      new Reconciler(
        journal,
        topups,
        teller,
        { intervalMs: 1_000, staleAfterMs: 0 },
        logger,
      ).runOnce();
    // Still within the token's validity: it could yet happen, so it stays pending.
    expect(await reconcile(young)).toBe(0);
    expect(await reconcile(service({ checkoutTtlMs: 50, checkoutSafetyMarginMs: 0 }))).toBe(1);
    expect(told).toEqual(["not-charged"]);
  });

  it("skips an entry whose purchase is still being handled", async () => {
    const intent = await intentFor();
    sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 300 });
    const purchase = service().purchase(intent);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await service().resolvePending(intent.checkout.id);
    expect(await journal.get(intent.checkout.id)).toMatchObject({ state: "pending" });
    expect(resultOf(await purchase)).toBe("done");
  });
});
