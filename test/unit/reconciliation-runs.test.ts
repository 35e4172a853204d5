// Running reconciliations over an in-memory ledger: a run's report goes out once; the schedule's
// run of a day happens once; a run left by a stopping instance is taken over where it stopped,
// no purchase done twice; a report that could not be sent is sent by the next look.
import { describe, expect, it, vi } from "vitest";
import type { DaySources, Finding, LedgerSide } from "../../src/domain/daily-reconciliation.js";
import {
  type FindingSettler,
  type ReconciliationLedger,
  type ReconciliationReport,
  type ReconciliationRun,
  Reconciliations,
} from "../../src/domain/reconciliation-runs.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

interface StoredRun extends ReconciliationRun {
  holder: string;
  leased: boolean;
  finished: boolean;
  reported: boolean;
  scheduled: boolean;
}

function memoryLedger() {
  const runs: StoredRun[] = [];
  const done: string[] = [];
  const ledger: ReconciliationLedger = {
    async start(days, startedBy, holder) {
      if (startedBy === null && runs.some((r) => r.scheduled && r.firstDay === days.first)) {
        return null;
      }
      const run: StoredRun = {
        id: String(runs.length + 1),
        firstDay: days.first,
        lastDay: days.last,
        startedBy,
        resumeAfter: null,
        purchases: 0,
        holder,
        leased: true,
        finished: false,
        reported: false,
        scheduled: startedBy === null,
      };
      runs.push(run);
      return { ...run };
    },
    async takeOver(holder, _leaseMs, working) {
      const run = runs.find((r) => !r.finished && !r.leased && !working.includes(r.id));
      if (!run) return null;
      Object.assign(run, { holder, leased: true });
      return { ...run };
    },
    async progress(held, day, purchaseId) {
      const run = runs.find((r) => r.id === held.id);
      if (!run || run.holder !== held.holder || run.finished) return false;
      run.resumeAfter = `${day}/${purchaseId}`;
      run.purchases++;
      done.push(purchaseId);
      return true;
    },
    async leave(held) {
      const run = runs.find((r) => r.id === held.id && r.holder === held.holder);
      if (run) run.leased = false;
    },
    async finish(held) {
      const run = runs.find((r) => r.id === held.id && r.holder === held.holder && !r.finished);
      if (!run) return null;
      run.finished = true;
      return run.purchases;
    },
    async claimReport(id) {
      const run = runs.find((r) => r.id === id);
      if (!run || run.reported) return false;
      run.reported = true;
      return true;
    },
    async unclaimReport(id) {
      const run = runs.find((r) => r.id === id);
      if (run) run.reported = false;
    },
    async unreported() {
      return runs.filter((r) => r.finished && !r.reported).map((r) => ({ ...r }));
    },
    openCounts: async () => new Map(),
    settledCount: async () => 0,
    openBefore: async () => ({ count: 0, first: [] }),
    openUpTo: async function* () {},
    resolve: async () => false,
  };
  return { ledger, runs, done };
}

const purchase = (i: number): LedgerSide => ({
  purchaseId: `p${String(i).padStart(3, "0")}`,
  phase: "charged",
  priceMinor: 100n,
  agentMode: true,
  payments: [],
  checkoutIds: [`c${i}`],
});

function sources(count: number, onAsk: () => Promise<void> = async () => {}): DaySources {
  const all = Array.from({ length: count }, (_, i) => purchase(i));
  return {
    purchasesOfDay: async (_day, after, limit) =>
      all.filter((p) => after === null || p.purchaseId > after).slice(0, limit),
    canAsk: () => true,
    askPayment: async () => ({ paid: true, refunded: false, amountMinor: 100n }),
    askProvider: async () => {
      await onAsk();
      return { executed: true, amountMinor: 100n };
    },
    ask: async (call) => ({ asked: true, answer: await call() }),
  };
}

function service(
  ledger: ReconciliationLedger,
  daySources: DaySources,
  deliver: (report: ReconciliationReport) => Promise<void>,
  holder = "a",
  settle?: FindingSettler,
) {
  return new Reconciliations(
    ledger,
    daySources,
    async () => [],
    deliver,
    { holder, leaseMs: 1000 },
    silent,
    settle,
  );
}

describe("reconciliation runs", () => {
  it("sends an admin's run's report to that admin once, after every purchase of every day", async () => {
    const { ledger, done } = memoryLedger();
    const reports: ReconciliationReport[] = [];
    const runs = service(ledger, sources(5), async (r) => void reports.push(r));
    await runs.request({ first: "2026-11-01", last: "2026-11-02" }, 42);
    await vi.waitFor(() => expect(reports).toHaveLength(1));
    expect(done).toHaveLength(10);
    expect(reports.map((r) => [r.run.startedBy, r.purchases])).toEqual([[42, 10]]);
    await runs.resume();
    expect(reports).toHaveLength(1);
  });

  it("runs the schedule's day once", async () => {
    const { ledger, done } = memoryLedger();
    let reports = 0;
    const runs = service(ledger, sources(3), async () => void reports++);
    await runs.scheduled("2026-11-20");
    await runs.scheduled("2026-11-20");
    expect([done.length, reports]).toEqual([3, 1]);
  });

  it("leaves a run where it is on stop; another instance finishes it, no purchase twice", async () => {
    const { ledger, done, runs: stored } = memoryLedger();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = 0;
    const reports: ReconciliationReport[] = [];
    const first = service(
      ledger,
      sources(6, async () => {
        if (++asked === 3) await held;
      }),
      async (r) => void reports.push(r),
    );
    await first.request({ first: "2026-11-20", last: "2026-11-20" }, 42);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const stopping = first.stop();
    release();
    await stopping;
    expect(stored[0]).toMatchObject({
      finished: false,
      leased: false,
      resumeAfter: "2026-11-20/p001",
    });
    const second = service(ledger, sources(6), async (r) => void reports.push(r), "b");
    await second.resume();
    expect(done).toEqual(["p000", "p001", "p002", "p003", "p004", "p005"]);
    expect(reports.map((r) => r.purchases)).toEqual([6]);
  });

  it("never takes over its own run, even when its lease lapsed during a slow purchase", async () => {
    const { ledger, done, runs: stored } = memoryLedger();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reports: ReconciliationReport[] = [];
    const runs = service(
      ledger,
      sources(3, () => held),
      async (r) => void reports.push(r),
    );
    await runs.request({ first: "2026-11-20", last: "2026-11-20" }, 42);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const run = stored[0] as (typeof stored)[number];
    run.leased = false;
    await runs.resume();
    release();
    await vi.waitFor(() => expect(reports).toHaveLength(1));
    expect(done).toEqual(["p000", "p001", "p002"]);
  });

  it("settles a payment found paid, neither topped up nor refunded, by the payment path; notes it", async () => {
    const { ledger } = memoryLedger();
    const written: Finding[] = [];
    ledger.progress = async (_held, _day, _purchaseId, findings) => {
      written.push(...findings);
      return true;
    };
    const side = (i: number): LedgerSide => ({
      purchaseId: `p${i}`,
      phase: "unpaid",
      priceMinor: 100n,
      agentMode: false,
      payments: [
        { system: "khalti", id: `pidx:${i}`, amountMinor: 100n, refunded: false, recorded: false },
      ],
      checkoutIds: [],
    });
    const unpaidDay: DaySources = {
      ...sources(0),
      purchasesOfDay: async (_day, after) => (after ? [] : [side(1), side(2), side(3), side(4)]),
    };
    const asked: string[] = [];
    const settle: FindingSettler = async ({ purchaseId, system, handle }) => {
      asked.push(`${purchaseId} ${system} ${handle}`);
      if (purchaseId === "p4") throw new Error("the ledger is away");
      return ({ p1: "applied", p2: "stray", p3: null } as const)[purchaseId] ?? null;
    };
    const runs = service(ledger, unpaidDay, async () => undefined, "a", settle);
    await runs.scheduled("2026-11-20");
    // The handle is all after the system's name, colons included.
    expect(asked).toEqual([
      "p1 khalti pidx:1",
      "p2 khalti pidx:2",
      "p3 khalti pidx:3",
      "p4 khalti pidx:4",
    ]);
    expect(written.map((f) => [f.purchaseId, f.kind, f.settled])).toEqual([
      [
        "p1",
        "paid-not-settled",
        "settled by run 1: payment recorded; it pays for its purchase, whose top-up has started (its outcome is the purchase's)",
      ],
      [
        "p2",
        "paid-not-settled",
        "settled by run 1: payment recorded; it pays for nothing, owed back",
      ],
      // Not settled (nothing found now, or the settling failed): open, as before.
      ["p3", "paid-not-settled", undefined],
      ["p4", "paid-not-settled", undefined],
    ]);
  });

  it("sends a report that could not be sent at the next look", async () => {
    const { ledger } = memoryLedger();
    let fail = true;
    let sent = 0;
    const runs = service(ledger, sources(1), async () => {
      if (fail) throw new Error("Telegram is away");
      sent++;
    });
    await expect(runs.scheduled("2026-11-20")).rejects.toThrow("Telegram is away");
    fail = false;
    await runs.resume();
    await runs.resume();
    expect(sent).toBe(1);
  });
});
