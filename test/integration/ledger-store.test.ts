// The ledger's store, the same suite on a real PostgreSQL server and on the embedded PGlite:
// the database itself holds an intent to one row, a buyer to one purchase in flight, a token
// to one purchase; every change of phase leaves an event; replicas claim different purchases.
import { sql } from "kysely";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { type Purchase, StaleWriteError } from "../../src/domain/purchase.js";
import { advance } from "../../src/domain/purchase-machine.js";
import { LEDGER_ENGINES, testLedger } from "../support/ledger-fixture.js";
import { purchaseOf } from "../support/purchases.js";

describe.each(LEDGER_ENGINES)("the ledger's purchases on %s", (engine) => {
  const ledger = testLedger(engine, "ledger_store");
  let store: LedgerPurchases;
  let other: LedgerPurchases;

  beforeAll(() => {
    store = new LedgerPurchases(ledger.connection, "instance-a");
    other = new LedgerPurchases(ledger.connection, "instance-b");
  });
  afterEach(() => ledger.empty());

  /** A purchase just confirmed: phase created, nothing sent. */
  const fresh = (overrides: Partial<Purchase> = {}): Purchase =>
    purchaseOf({
      phase: "created",
      told: null,
      transaction: null,
      checkout: null,
      reference: null,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      ...overrides,
    });
  const events = async (id: string) =>
    (
      await ledger.db
        .selectFrom("purchase_events")
        .select(["from_phase", "to_phase", "told", "actor"])
        .where("purchase_id", "=", id)
        .orderBy("id")
        .execute()
    ).map(
      (e) => `${e.from_phase ?? "-"}>${e.to_phase}${e.told ? ` told ${e.told}` : ""} by ${e.actor}`,
    );

  it("keeps an intent to one row and a buyer to one purchase in flight", async () => {
    const first = await store.create(fresh({ id: "i1" }), 1_000);
    expect(first.kind).toBe("created");
    expect((await other.create(fresh({ id: "i1" }), 1_000)).kind).toBe("duplicate");
    expect((await other.create(fresh({ id: "i2" }), 1_000)).kind).toBe("busy");
    // Another buyer is not held up.
    expect((await other.create(fresh({ id: "i3", buyer: 6 }), 1_000)).kind).toBe("created");
    // Once the first is settled, the buyer may buy again.
    const settled = fresh({ id: "i1", version: 1, phase: "not-charged", reason: "interrupted" });
    await store.save(settled);
    expect((await other.create(fresh({ id: "i2" }), 1_000)).kind).toBe("created");
    expect(await ledger.db.selectFrom("purchases").select("id").execute()).toHaveLength(3);
  });

  it("holds the rules in the database itself, whoever writes", async () => {
    await store.create(fresh({ id: "i1" }), 1_000);
    // Paid, not yet in flight (a finished purchase never moves again: 0003-money-rules).
    const at = Date.now();
    await store.adopt(
      purchaseOf({
        id: "i2",
        reference: "r2",
        phase: "paid",
        told: null,
        transaction: null,
        payment: {
          method: "telegram",
          currency: "NPR",
          minor: 70_000,
          expiresAt: at,
          charge: { id: "c2", providerId: "prov-c2", at },
        },
      }),
      [],
    );
    // A second purchase of the same buyer cannot be put in flight, even by hand.
    await expect(
      ledger.db
        .updateTable("purchases")
        .set({ phase: "token-taken" })
        .where("id", "=", "i2")
        .execute(),
    ).rejects.toThrow(/purchases_one_in_flight_per_buyer/);
    // Charged without the provider's transaction id is refused (from a phase it may follow).
    await ledger.db
      .updateTable("purchases")
      .set({ phase: "token-taken" })
      .where("id", "=", "i1")
      .execute();
    await expect(
      ledger.db
        .updateTable("purchases")
        .set({ phase: "charged", due_at: null })
        .where("id", "=", "i1")
        .execute(),
    ).rejects.toThrow(/check/i);
  });

  it("writes an event for every change of phase and of what was told, by whom", async () => {
    const purchase = fresh({ id: "i1" });
    await store.create(purchase, 1_000);
    purchase.checkout = { id: "co1", issuedAt: Date.now() };
    purchase.reference = "tg5-x1";
    purchase.phase = "token-taken";
    expect(await store.takeCheckout(purchase)).toBe(true);
    purchase.phase = "requested";
    await store.save(purchase);
    await store.save(purchase); // no change of phase: no event
    purchase.phase = "charged";
    purchase.transaction = { txnId: "TXN9", amount: "700.00", date: null };
    await other.save(purchase);
    purchase.told = "charged";
    await other.save(purchase);
    expect(await events("i1")).toEqual([
      "->created by instance-a",
      "created>token-taken by instance-a",
      "token-taken>requested by instance-a",
      "requested>charged by instance-b",
      "charged>charged told charged by instance-b",
    ]);
  });

  it("refuses a write over a stale copy: the newer row stays as it is", async () => {
    const purchase = fresh({ id: "i1" });
    await store.create(purchase, 1_000);
    // Two instances read the same version.
    const slow = (await other.get("i1")) as Purchase;
    const quick = (await store.get("i1")) as Purchase;
    advance(quick, { type: "refuse", reason: "interrupted" }, Date.now());
    await store.save(quick);
    expect(quick.version).toBe(2);
    advance(
      slow,
      { type: "take-token", checkout: { id: "co1", issuedAt: 1 }, reference: "r", attempt: 1 },
      Date.now(),
    );
    await expect(other.takeCheckout(slow)).rejects.toBeInstanceOf(StaleWriteError);
    await expect(other.save(slow)).rejects.toBeInstanceOf(StaleWriteError);
    // Nothing of the stale write landed: not the row, not the token, not an event.
    expect(await store.get("i1")).toMatchObject({
      phase: "not-charged",
      version: 2,
      checkout: null,
    });
    expect(await store.byCheckout("co1")).toBeNull();
    expect(await events("i1")).toEqual([
      "->created by instance-a",
      "created>not-charged by instance-a",
    ]);
  });

  it("postpones a check only while the purchase is at the version that was read", async () => {
    const purchase = fresh({ id: "i1", phase: "unknown", checkout: { id: "co1", issuedAt: 1 } });
    await store.adopt(purchase, ["co1"]);
    const read = (await store.get("i1")) as Purchase;
    const later = Date.now() + 60_000;
    expect(await store.postpone(read, later)).toBe(true);
    const dueAt = async () =>
      (
        await ledger.db
          .selectFrom("purchases")
          .select("due_at")
          .where("id", "=", "i1")
          .executeTakeFirstOrThrow()
      ).due_at;
    expect(new Date((await dueAt()) as Date).getTime()).toBe(later);
    // Found charged meanwhile: the late check's postponement writes nothing.
    const charged = (await other.get("i1")) as Purchase;
    advance(
      charged,
      { type: "find", transaction: { txnId: "T1", amount: "700", date: null } },
      Date.now(),
    );
    await other.save(charged);
    expect(await store.postpone(read, later + 1)).toBe(false);
    expect(await store.get("i1")).toMatchObject({ phase: "charged", version: 2 });
    expect(await dueAt()).toBeNull();
    expect(await store.checkouts("i1")).toEqual(["co1"]);
  });

  it("binds a checkout token to one purchase, earlier attempts' tokens included", async () => {
    const a = fresh({ id: "a" });
    const b = fresh({ id: "b", buyer: 6 });
    await store.create(a, 1_000);
    await store.create(b, 1_000);
    a.checkout = { id: "co1", issuedAt: Date.now() };
    a.phase = "token-taken";
    expect(await store.takeCheckout(a)).toBe(true);
    a.checkout = { id: "co2", issuedAt: Date.now() };
    expect(await store.takeCheckout(a)).toBe(true);
    b.checkout = { id: "co1", issuedAt: Date.now() };
    b.phase = "token-taken";
    expect(await store.takeCheckout(b)).toBe(false);
    expect((await store.byCheckout("co1"))?.id).toBe("a");
    expect((await store.byCheckout("co2"))?.id).toBe("a");
    expect((await store.get("b"))?.phase).toBe("created");
  });

  it("keeps amounts exactly as stated, and every field of the record", async () => {
    const purchase = purchaseOf({
      id: "exact",
      bouquet: { code: "X", name: "X (MONTHLY)", price: "12.345" },
      transaction: { txnId: "T1", amount: "700.00", date: { at: 1_700_000_000_000, text: "x" } },
      renewedUntil: null,
      statusMessage: "55:66",
      fromReminder: true,
      refusal: { code: "E1" },
    });
    await store.adopt(purchase, ["co1"]);
    expect(await store.get("exact")).toEqual(purchase);
    const unread = purchaseOf({ id: "unread", reference: "r2", checkout: null });
    await store.adopt(unread, []);
    expect((await store.get("unread"))?.renewedUntil).toBeUndefined();
  });

  it("lets replicas claiming at once take different purchases, and never a leased one", async () => {
    for (let i = 0; i < 6; i++) {
      const purchase = fresh({ id: `p${i}`, buyer: 100 + i });
      const created = await store.create(purchase, 60_000);
      if (created.kind === "created") await created.lease.release();
    }
    const held = await store.create(fresh({ id: "held", buyer: 99 }), 60_000);
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? store : other).claimDue(Date.now() + 1_000, 60_000),
      ),
    );
    const ids = claims.flatMap((claim) => (claim ? [claim.id] : []));
    expect(ids.sort()).toEqual(["p0", "p1", "p2", "p3", "p4", "p5"]);
    expect(await store.claimDue(Date.now() + 1_000, 60_000)).toBeNull();
    // Given back, a claim is due again; `skip` passes it over.
    await claims.find((claim) => claim?.id === "p3")?.lease.release();
    expect(await store.claimDue(Date.now() + 1_000, 60_000, ["p3"])).toBeNull();
    expect((await store.claimDue(Date.now() + 1_000, 60_000))?.id).toBe("p3");
    if (held.kind === "created") await held.lease.release();
  });

  it("makes a purchase due when its holder's lease lapses", async () => {
    const created = await store.create(fresh({ id: "dying" }), 60_000);
    if (created.kind === "created") await created.lease.release();
    // As a holder that died leaves it: a lease nobody renews, lapsing in 300 ms.
    await ledger.db
      .updateTable("purchases")
      .set({ lease_owner: "dead", lease_until: sql`now() + interval '300 ms'` })
      .where("id", "=", "dying")
      .execute();
    expect(await store.claimDue(Date.now() + 60_000, 1_000)).toBeNull();
    const dueAt = (await store.nextDue()) ?? 0;
    expect(dueAt).toBeGreaterThan(Date.now() - 50);
    expect(dueAt).toBeLessThan(Date.now() + 400);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now()) + 50));
    expect((await other.claimDue(Date.now(), 1_000))?.id).toBe("dying");
  });

  it("claims untold outcomes once, oldest first", async () => {
    await store.adopt(purchaseOf({ id: "u1", told: null, updatedAt: 1_000 }), []);
    await store.adopt(purchaseOf({ id: "u2", reference: "r2", told: null, updatedAt: 2_000 }), []);
    await store.adopt(purchaseOf({ id: "t", reference: "r3" }), []);
    const first = await store.claimUntold(60_000);
    const second = await other.claimUntold(60_000);
    expect([first?.id, second?.id]).toEqual(["u1", "u2"]);
    expect(await store.claimUntold(60_000)).toBeNull();
  });

  it("holds an untold outcome for one teller: another is told it is held, then told, or elsewhere", async () => {
    await store.adopt(purchaseOf({ id: "h1", told: null }), []);
    const lease = await store.holdToTell("h1", "charged", 60_000);
    expect(typeof lease).toBe("object");
    expect(await other.holdToTell("h1", "charged", 60_000)).toBe("held");
    expect(await other.claimUntold(60_000)).toBeNull();
    // Told meanwhile (the told write), then given back: no one tells it again.
    await ledger.db
      .updateTable("purchases")
      .set({ told: "charged" })
      .where("id", "=", "h1")
      .execute();
    if (typeof lease === "object") await lease.release();
    expect(await other.holdToTell("h1", "charged", 60_000)).toBe("told");
    // The ledger at another phase (moved on, or the asker's copy not written yet).
    expect(await other.holdToTell("h1", "refunded", 60_000)).toBe("elsewhere");
    expect(await other.holdToTell("missing", "charged", 60_000)).toBe("elsewhere");
  });

  it("finds recent purchases by customer or connection in any case, and a buyer's newest first", async () => {
    await store.adopt(purchaseOf({ id: "old", createdAt: 1_000 }), []);
    await store.adopt(
      purchaseOf({
        id: "new",
        reference: "r2",
        createdAt: 2_000,
        connection: { service: "internet", id: "Ram.Net" },
      }),
      [],
    );
    await store.adopt(
      purchaseOf({ id: "else", reference: "r3", buyer: 9, customer: { cuid: "2", name: "S" } }),
      [],
    );
    expect((await store.recent(10, { codes: ["ram.NET"] })).map((p) => p.id)).toEqual(["new"]);
    expect((await store.recent(10, { codes: ["1000001"] })).map((p) => p.id)).toEqual([
      "new",
      "old",
    ]);
    expect((await store.ofBuyer(5, 10)).map((p) => p.id)).toEqual(["new", "old"]);
    expect((await store.recent(1, { start: 1 })).length).toBe(1);
    expect(await store.byTransaction("TXN1")).not.toBeNull();
    expect(await store.byReference("r3")).toMatchObject({ id: "else" });
  });

  it("counts renewals that followed a reminder", async () => {
    await store.adopt(purchaseOf({ id: "r1", fromReminder: true }), []);
    await store.adopt(purchaseOf({ id: "r2", reference: "x2" }), []);
    await store.adopt(
      purchaseOf({
        id: "r3",
        reference: "x3",
        fromReminder: true,
        phase: "not-charged",
        reason: "declined",
        transaction: null,
      }),
      [],
    );
    expect(await store.renewalsAfterReminders()).toBe(1);
  });

  it("takes a record of the previous release in once", async () => {
    const record = purchaseOf({
      id: "imported",
      phase: "requested",
      told: null,
      transaction: null,
    });
    expect(await store.adopt(record, ["co0", "co1"])).toBe(true);
    expect(await store.adopt(record, ["co0", "co1"])).toBe(false);
    expect((await store.byCheckout("co0"))?.id).toBe("imported");
    expect((await store.claimDue(Date.now() + 1_000, 1_000))?.id).toBe("imported");
  });
});
