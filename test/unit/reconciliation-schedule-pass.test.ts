// The daily reconciliation's schedule (src/bot/features/reconcile/daily.ts): a pass that meets a
// store away says so by its reason, as every other outage line does; anything else keeps its
// stack for whoever reads the log.
import { describe, expect, it } from "vitest";
import { ReconciliationSchedule } from "../../src/bot/features/reconcile/daily.js";
import type { Log } from "../../src/domain/ports.js";
import type { Reconciliations } from "../../src/domain/reconciliation-runs.js";

class StoreAway extends Error {}

function scheduleFailingWith(error: Error) {
  const lines: { fields: object; message: string }[] = [];
  const keep = (fields: object, message: string) => lines.push({ fields, message });
  const log: Log = { debug: keep, info: keep, warn: keep, error: keep };
  const runs = {
    resume: async () => {
      throw error;
    },
  } as unknown as Reconciliations;
  const schedule = new ReconciliationSchedule(
    runs,
    {
      at: undefined,
      zone: "Asia/Kathmandu",
      lookEveryMs: 60_000,
      isTransient: (failure) => failure instanceof StoreAway,
    },
    log,
  );
  return { schedule, lines };
}

describe("the daily reconciliation's pass", () => {
  it("logs a store away by its reason, without a stack, and looks again at its interval", async () => {
    const { schedule, lines } = scheduleFailingWith(new StoreAway("the ledger is away"));
    await expect(schedule.pass()).resolves.toBe(60_000);
    expect(lines).toEqual([
      {
        fields: { reason: "Error: the ledger is away" },
        message: "reconciliation not done yet",
      },
    ]);
  });

  it("keeps the error itself (its stack) for anything else", async () => {
    const bug = new TypeError("x is undefined");
    const { schedule, lines } = scheduleFailingWith(bug);
    await schedule.pass();
    expect(lines).toEqual([{ fields: { err: bug }, message: "reconciliation not done yet" }]);
  });
});
