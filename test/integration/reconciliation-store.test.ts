// The reconciliation's runs and findings, on a real PostgreSQL server and on PGlite: the daily
// schedule runs a day once, admins as often as they like; a run is held under a lease and taken
// over where it stopped; an open finding is not opened twice, a "not asked" is closed by a later
// run that asked; findings keep exact amounts and stay open until resolved with a note.
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { ReconciliationStore } from "../../src/adapters/ledger/reconciliation-store.js";
import type { Finding } from "../../src/domain/daily-reconciliation.js";
import { LEDGER_ENGINES, testLedger } from "../support/ledger-fixture.js";

const finding: Finding = {
  purchaseId: "p-1",
  kind: "amount-differs",
  outsideIds: "khalti:pidx-1",
  providerTxns: "c-1=TXN-1 c-2=none",
  ledgerMinor: 123456789012345n,
  outsideMinor: 50000n,
  nextStep: "check the price and refund the difference",
};
const notAsked: Finding = {
  purchaseId: "p-1",
  kind: "not-asked",
  outsideIds: "provider:c-1",
  providerTxns: "c-1=?",
  ledgerMinor: null,
  outsideMinor: null,
  nextStep: "run the reconciliation of this day again",
};
/** Long enough that a busy machine does not let it lapse between two statements. */
const LEASE_MS = 1_000;
const DAY = { first: "2026-11-20", last: "2026-11-20" };

describe.each(LEDGER_ENGINES)("the reconciliation store on %s", (engine) => {
  const ledger = testLedger(engine, "reconciliation_store");
  const openUpTo = async (store: ReconciliationStore, last = "9999-12-31") => {
    const found = [];
    for await (const f of store.openUpTo(last)) found.push(f);
    return found;
  };

  it("starts the schedule's run of a day once, an admin's as often as asked", async () => {
    const store = new ReconciliationStore(ledger.connection);
    const first = await store.start(DAY, null, "a", 60_000);
    expect(first).toMatchObject({ firstDay: "2026-11-20", lastDay: "2026-11-20", startedBy: null });
    expect(await store.start(DAY, null, "b", 60_000)).toBeNull();
    const range = { first: "2026-11-01", last: "2026-11-30" };
    expect(await store.start(range, 42, "a", 60_000)).toMatchObject({ startedBy: 42 });
    expect(await store.start(range, 42, "a", 60_000)).not.toBeNull();
  });

  it("keeps a finding open once until resolved; a later run that asked closes a not-asked", async () => {
    const store = new ReconciliationStore(ledger.connection);
    const run = await store.start(DAY, 42, "a", 60_000);
    if (!run) throw new Error("no run");
    const held = { id: run.id, holder: "a", leaseMs: 60_000 };
    expect(await store.progress(held, "2026-11-20", "p-1", [finding, notAsked])).toBe(true);
    const again = await store.start(DAY, 42, "a", 60_000);
    if (!again) throw new Error("no run");
    const heldAgain = { id: again.id, holder: "a", leaseMs: 60_000 };
    // Found again, and this time every party answered.
    await store.progress(heldAgain, "2026-11-20", "p-1", [finding]);
    const open = await openUpTo(store, "2026-11-20");
    expect(open).toEqual([{ ...finding, id: expect.any(String), day: "2026-11-20" }]);
    expect(await store.openCounts("2026-11-20", "2026-11-20")).toEqual(
      new Map([["amount-differs", 1]]),
    );
    expect(await store.openBefore("2026-11-21", 10)).toEqual({ count: 1, first: open });
    expect(await store.openBefore("2026-11-21", 0)).toEqual({ count: 1, first: [] });
    expect(await store.openBefore("2026-11-20", 10)).toEqual({ count: 0, first: [] });
    expect(await store.resolve(open[0]?.id ?? "", 42, "refunded by hand")).toBe(true);
    expect(await store.resolve(open[0]?.id ?? "", 42, "again")).toBe(false);
    expect(await store.resolve("not-a-number", 42, "x")).toBe(false);
    expect(await openUpTo(store)).toEqual([]);
    // Found again by a later run: the admin's resolution stands.
    await store.progress(heldAgain, "2026-11-20", "p-1", [finding]);
    expect(await openUpTo(store)).toEqual([]);
    expect(await store.finish(heldAgain)).toBe(2);
  });

  it("keeps a finding the bot settled as settled, with its note: never open, never twice", async () => {
    const store = new ReconciliationStore(ledger.connection);
    const day = "2026-11-24";
    const run = await store.start({ first: day, last: day }, 42, "a", 60_000);
    if (!run) throw new Error("no run");
    const held = { id: run.id, holder: "a", leaseMs: 60_000 };
    const unsettled: Finding = {
      purchaseId: "p-7",
      kind: "paid-not-settled",
      outsideIds: "khalti:pidx-7",
      providerTxns: "",
      ledgerMinor: 70_000n,
      outsideMinor: 70_000n,
      nextStep: "top up or refund the buyer",
    };
    const other = { ...unsettled, purchaseId: "p-8", outsideIds: "khalti:pidx-8" };
    // Found while the payment system could not settle it: open.
    await store.progress(held, day, "p-7", [unsettled]);
    expect(await store.openCounts(day, day)).toEqual(new Map([["paid-not-settled", 1]]));
    // Settled by a later look: the open one is closed as settled, with the note.
    const note = `settled by run ${run.id}: payment recorded; it pays for its purchase, topped up`;
    await store.progress(held, day, "p-7", [{ ...unsettled, settled: note }]);
    await store.progress(held, day, "p-8", [{ ...other, settled: note }]);
    await store.progress(held, day, "p-8", [{ ...other, settled: note }]);
    expect(await store.openCounts(day, day)).toEqual(new Map());
    expect(await store.settledCount(day, day)).toBe(2);
    expect(await store.settledCount("2026-11-25", "2026-11-25")).toBe(0);
    const rows = (await ledger.db
      .selectFrom("reconciliation_findings" as never)
      .select(["id", "purchase_id", "status", "note", "resolved_by"] as never[])
      .where("day" as never, "=", day as never)
      .orderBy("id" as never)
      .execute()) as unknown as { id: string; purchase_id: string }[];
    expect(rows).toEqual([
      { id: expect.anything(), purchase_id: "p-7", status: "settled", note, resolved_by: null },
      { id: expect.anything(), purchase_id: "p-8", status: "settled", note, resolved_by: null },
    ]);
    // Not open: an admin's /resolve finds nothing to resolve.
    expect(await store.resolve(String(rows[0]?.id), 42, "x")).toBe(false);
    // The database keeps "settled" to the bot's own kind of finding.
    await expect(
      ledger.db
        .insertInto("reconciliation_findings" as never)
        .values({
          run_id: run.id,
          day,
          purchase_id: "p-9",
          kind: "amount-differs",
          next_step: "x",
          status: "settled",
          note: "x",
          resolved_at: new Date(),
        } as never)
        .execute(),
    ).rejects.toThrow(/reconciliation_findings_settled_by_bot/);
    expect(await store.finish(held)).toBe(4);
  });

  it("keeps the provider's transaction beside each checkout with every finding", async () => {
    const store = new ReconciliationStore(ledger.connection);
    const run = await store.start({ first: "2026-11-26", last: "2026-11-26" }, 42, "a", 60_000);
    if (!run) throw new Error("no run");
    await store.progress({ id: run.id, holder: "a", leaseMs: 60_000 }, "2026-11-26", "p-1", [
      finding,
    ]);
    const [stored] = await openUpTo(store, "2026-11-26");
    expect(stored?.providerTxns).toBe("c-1=TXN-1 c-2=none");
    // Emptied for the next test (a finding resolved is never deleted: 0016-money-guards).
    await sql`TRUNCATE reconciliation_findings`.execute(ledger.db);
  });

  it("lets another instance take over a run whose lease lapsed, where it stopped", async () => {
    const store = new ReconciliationStore(ledger.connection);
    const run = await store.start({ first: "2026-11-21", last: "2026-11-22" }, 7, "a", LEASE_MS);
    if (!run) throw new Error("no run");
    const byA = { id: run.id, holder: "a", leaseMs: LEASE_MS };
    expect(await store.progress(byA, "2026-11-21", "p-9", [])).toBe(true);
    expect(await store.takeOver("b", 60_000, [])).toBeNull();
    await sleep(LEASE_MS + 100);
    const taken = await store.takeOver("b", 60_000, []);
    expect(taken).toMatchObject({ id: run.id, resumeAfter: "2026-11-21/p-9", purchases: 1 });
    expect(await store.progress(byA, "2026-11-21", "p-10", [finding])).toBe(false);
    expect(await store.finish(byA)).toBeNull();
    expect(await openUpTo(store)).toEqual([]);
    const byB = { id: run.id, holder: "b", leaseMs: 60_000 };
    await store.leave(byB);
    expect(await store.takeOver("c", 60_000, [run.id])).toBeNull();
    const back = await store.takeOver("c", 60_000, []);
    expect(back?.id).toBe(run.id);
    expect(await store.finish({ id: run.id, holder: "c" })).toBe(1);
  });

  it("reads every open finding a page at a time, oldest day first", async () => {
    const store = new ReconciliationStore(ledger.connection);
    const run = await store.start({ first: "2026-10-01", last: "2026-10-02" }, 7, "a", 60_000);
    if (!run) throw new Error("no run");
    const held = { id: run.id, holder: "a", leaseMs: 60_000 };
    const many = (purchaseId: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({ ...finding, purchaseId, outsideIds: `k:${i}` }));
    await store.progress(held, "2026-10-02", "late", many("late", 300));
    await store.progress(held, "2026-10-01", "early", many("early", 450));
    const read = await openUpTo(store, "2026-10-02");
    expect(read).toHaveLength(750);
    expect(read.slice(0, 450).every((f) => f.day === "2026-10-01")).toBe(true);
    expect(new Set(read.map((f) => f.id)).size).toBe(750);
    expect(await openUpTo(store, "2026-10-01")).toHaveLength(450);
    // Emptied for the next test (a finding resolved is never deleted: 0016-money-guards).
    await sql`TRUNCATE reconciliation_findings`.execute(ledger.db);
  });

  it("sends a run's report once; one not sent is found again", async () => {
    const store = new ReconciliationStore(ledger.connection);
    const run = await store.start({ first: "2026-11-23", last: "2026-11-23" }, 7, "a", 60_000);
    if (!run) throw new Error("no run");
    const unreported = async () => (await store.unreported()).some((r) => r.id === run.id);
    expect(await unreported()).toBe(false);
    await store.finish({ id: run.id, holder: "a" });
    expect(await unreported()).toBe(true);
    expect(await store.claimReport(run.id)).toBe(true);
    expect(await store.claimReport(run.id)).toBe(false);
    expect(await unreported()).toBe(false);
    await store.unclaimReport(run.id);
    expect(await unreported()).toBe(true);
  });
});
