// A refusal is not an outage. The ledger's errors told apart on a real PostgreSQL server and on
// the embedded PGlite: the database answering "no" (a check, a key, a value it cannot take, the
// ledger's own money rules) is a refusal, thrown as PaymentRefused and never written in part;
// a server that cannot be reached, a closed embedded ledger or a transient conflict is not.
// Payments set aside go to a place of their own, once per method and charge id.
import { sql } from "kysely";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  isUnreachable,
  LedgerConnection,
  refusalOf,
} from "../../src/adapters/ledger/connection.js";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { PaymentRefused, type ReceivedPayment } from "../../src/domain/payment.js";
import { LEDGER_ENGINES, testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import { purchaseOf } from "../support/purchases.js";

/** An error as pg (and PGlite) shape a server's answer. */
const answered = (code: string, constraint?: string) =>
  Object.assign(new Error("the server said no"), { code, constraint });

describe("the ledger's errors, told apart", () => {
  it("a refusal: classes 22 and 23 and the ledger's own LG codes, named by code and constraint", () => {
    expect(refusalOf(answered("23514", "payments_currency_check"))).toBe(
      "SQLSTATE 23514 (payments_currency_check)",
    );
    expect(refusalOf(answered("23505", "payments_one_per_esewa_ref"))).toContain("23505");
    expect(refusalOf(answered("22021"))).toBe("SQLSTATE 22021");
    expect(refusalOf(answered("22P02"))).toBe("SQLSTATE 22P02");
    expect(refusalOf(answered("LG002"))).toBe("SQLSTATE LG002");
  });

  it("no refusal: the server away, a statement cut off, a transient conflict, the pool, a bug", () => {
    const notRefused = [
      answered("08006"),
      answered("57P01"),
      answered("53300"),
      answered("57014"),
      answered("25006"),
      answered("40001"),
      answered("40P01"),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      new Error("timeout exceeded when trying to connect"),
      new Error("PGlite is closed"),
      new TypeError("Cannot read properties of undefined"),
      "not even an error",
    ];
    for (const error of notRefused) expect(refusalOf(error)).toBeNull();
    expect(isUnreachable(new Error("PGlite is closed"))).toBe(true);
    expect(isUnreachable(new Error("PGlite is closing"))).toBe(true);
    expect(isUnreachable(answered("23514"))).toBe(false);
    // A standby's "read only": away, so a confirmation is journaled and retried, not refused.
    expect(isUnreachable(answered("25006"))).toBe(true);
  });

  it("a closed embedded ledger is no refusal: the payment is kept for later, not set aside", async () => {
    const { logger } = captureLogs();
    const ledger = new LedgerConnection({ kind: "embedded", dataDir: null }, { log: logger });
    await ledger.open();
    const store = new LedgerPurchases(ledger, "closed");
    await ledger.close();
    const failure = await store
      .receivePayment(
        {
          method: "telegram",
          purchaseId: "p",
          currency: "NPR",
          minor: 1,
          charge: { id: "c", providerId: null, at: Date.now() },
        },
        1_000,
      )
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(PaymentRefused);
    expect(refusalOf(failure)).toBeNull();
  });
});

describe.each(LEDGER_ENGINES)("refusals and payments set aside on %s", (engine) => {
  const ledger = testLedger(engine, "ledger_refusals");
  let store: LedgerPurchases;
  beforeAll(() => {
    store = new LedgerPurchases(ledger.connection, "instance-a");
  });
  afterEach(() => ledger.empty());

  const confirmation = (overrides: Partial<ReceivedPayment> = {}): ReceivedPayment => ({
    method: "telegram",
    purchaseId: "p1",
    currency: "NPR",
    minor: 70_000,
    charge: { id: "c1", providerId: "prov-c1", at: Date.now() },
    ...overrides,
  });
  const rows = async () =>
    (await sql<{ n: string }>`SELECT count(*)::text AS n FROM payments`.execute(ledger.db)).rows[0]
      ?.n;

  async function awaiting(): Promise<void> {
    const purchase = purchaseOf({
      id: "p1",
      buyer: 7,
      phase: "awaiting-payment",
      told: null,
      transaction: null,
      checkout: null,
      reference: null,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      payment: {
        method: "telegram",
        currency: "NPR",
        minor: 70_000,
        expiresAt: Date.now() + 60_000,
      },
    });
    const created = await store.create(purchase, 1_000);
    if (created.kind === "created") await created.lease.release();
  }

  it("refuses what it cannot hold, writing none of it", async () => {
    await awaiting();
    const refused = (payment: ReceivedPayment) =>
      store.receivePayment(payment, 1_000).catch((error: unknown) => error);
    // A check (the currency's form), a value PostgreSQL cannot take (NUL), an impossible amount.
    const currency = await refused(confirmation({ currency: "npr" }));
    expect(currency).toBeInstanceOf(PaymentRefused);
    expect((currency as PaymentRefused).reason).toMatch(/^SQLSTATE 23514/);
    expect(await refused(confirmation({ purchaseId: "p\u00001" }))).toBeInstanceOf(PaymentRefused);
    expect(await refused(confirmation({ minor: 0 }))).toBeInstanceOf(PaymentRefused);
    expect(await rows()).toBe("0");
    expect((await store.get("p1"))?.phase).toBe("awaiting-payment");
  });

  it("sets a payment aside once per method and charge id, as it came, until a person closes it", async () => {
    const odd = confirmation({ minor: 700.5, purchaseId: "p\u00001", currency: "npr" });
    const first = await store.setAside(odd, 7, "the amount is not a whole number of minor units");
    expect(first).toMatchObject({
      method: "telegram",
      purchaseId: "p\uFFFD1",
      buyer: 7,
      currency: "npr",
      amount: "700.5",
      chargeId: "c1",
      providerChargeId: "prov-c1",
    });
    expect(await store.setAside(odd, 7, "again")).toBeNull();
    expect(await store.setAside({ ...odd, method: "khalti" }, null, "other")).not.toBeNull();
    expect((await store.setAsideOpen(10)).map((aside) => aside.method)).toEqual([
      "telegram",
      "khalti",
    ]);
    expect(await store.hasSetAside("p\uFFFD1")).toBe(true);
    expect(await store.hasSetAside("p2")).toBe(false);

    expect((await store.setAsideByReference("c1", 5)).map((aside) => aside.method)).toEqual([
      "telegram",
      "khalti",
    ]);
    expect(await store.setAsideByReference("prov-c1", 5)).toHaveLength(2);
    expect(await store.setAsideByReference("p\uFFFD1", 5)).toHaveLength(2);
    expect(await store.setAsideByReference("nothing", 5)).toEqual([]);

    const closed = await store.closeSetAside("telegram", "c1", "telegram:1", "refunded by hand");
    expect(closed?.closed).toMatchObject({ by: "telegram:1", note: "refunded by hand" });
    expect((await store.setAsideOpen(10)).map((aside) => aside.method)).toEqual(["khalti"]);
    expect(await store.closeSetAside("telegram", "c1", "telegram:1", null)).toBeNull();
    expect(await store.closeSetAside("khalti", "c1", "telegram:1", null)).not.toBeNull();
    expect(await store.closeSetAside("khalti", "c1", "telegram:1", null)).toBeNull();
    // Still known once closed: a repeat is not set aside again.
    expect(await store.setAside(odd, 7, "again")).toBeNull();
  });

  it("raises an unsettled offer once; a payment set aside on it takes its row; the bot settles one", async () => {
    const offer = confirmation({
      method: "esewa",
      purchaseId: "p9",
      charge: { id: "u-9", providerId: null, at: Date.now() },
    });
    const raised = await store.setAside(offer, 9, "still PENDING", "unsettled");
    expect(raised).toMatchObject({ kind: "unsettled", chargeId: "u-9", reason: "still PENDING" });
    expect(await store.setAside(offer, 9, "still PENDING", "unsettled")).toBeNull();
    // Not a payment of the purchase set aside: its pages do not say "staff check it" for it.
    expect(await store.hasSetAside("p9")).toBe(false);
    // A payment set aside later on the same offer takes the row over: new, said again.
    const doubtful = {
      ...offer,
      minor: 700,
      charge: { id: "u-9", providerId: "REF9", at: Date.now() },
    };
    expect(await store.setAside(doubtful, 9, "COMPLETE for 7.0")).toMatchObject({
      kind: "payment",
      amount: "700",
      providerChargeId: "REF9",
      reason: "COMPLETE for 7.0",
    });
    expect(await store.hasSetAside("p9")).toBe(true);
    expect(await store.setAside(doubtful, 9, "again")).toBeNull();
    // Raised again on it: nothing (the row is the payment's now), and the bot cannot close it.
    expect(await store.setAside(offer, 9, "still PENDING", "unsettled")).toBeNull();
    const ref = { purchaseId: "p9", method: "esewa" as const, handle: "u-9" };
    expect(await store.settleUnsettled(ref, "paid")).toBe(false);

    const other = confirmation({
      method: "esewa",
      purchaseId: "p10",
      charge: { id: "u-10", providerId: null, at: Date.now() },
    });
    await store.setAside(other, 10, "no readable answer", "unsettled");
    const settled = { purchaseId: "p10", method: "esewa" as const, handle: "u-10" };
    expect(await store.settleUnsettled(settled, "settled by the payment system: paid")).toBe(true);
    expect(await store.settleUnsettled(settled, "again")).toBe(false);
    expect((await store.setAsideOpen(10)).map((aside) => aside.chargeId)).toEqual(["u-9"]);
    // Settled, it is never raised again.
    expect(await store.setAside(other, 10, "no readable answer", "unsettled")).toBeNull();

    // One a person settled by hand (/refunded: refunded outside the system) stays theirs: its
    // system settling it later is neither recorded as a payment nor reopens the row.
    const byHand = confirmation({
      method: "esewa",
      purchaseId: "p11",
      charge: { id: "u-11", providerId: null, at: Date.now() },
    });
    await store.setAside(byHand, 11, "still PENDING", "unsettled");
    expect(
      await store.closeSetAside("esewa", "u-11", "telegram:1", "refunded by bank"),
    ).not.toBeNull();
    const completed = {
      ...byHand,
      minor: 70_000,
      charge: { id: "u-11", providerId: "REF11", at: Date.now() },
    };
    await expect(store.receivePayment(completed, 1_000)).rejects.toBeInstanceOf(PaymentRefused);
    expect(await store.setAside(completed, 11, "recorded refused")).toBeNull();
    expect((await store.setAsideOpen(50)).map((aside) => aside.chargeId)).not.toContain("u-11");
  });
});
