// Running the daily reconciliation (daily-reconciliation.ts compares one purchase) over a day or
// a range of days, for an admin (/reconcile) or for the schedule (RECONCILE_AT, once a day
// across replicas and restarts). A run is stored in the ledger and held by one instance under a
// lease: each purchase's findings are written with the run's place, so that a run whose holder
// died is taken over where it stopped. A payment found paid, neither topped up nor refunded, is
// settled by the payment path itself (FindingSettler: the offer asked again and its payment
// received) and its finding kept as settled, with a note. When a run ends, its report goes out
// once.
import {
  type DaySources,
  type Finding,
  type FindingKind,
  reconcileDay,
} from "./daily-reconciliation.js";
import type { Log } from "./ports.js";
import type { BalanceDrift } from "./provider-balance.js";
import { daysBetween } from "./reconcile-days.js";
import { TaskGroup } from "./task-group.js";

export type { Finding, FindingKind };

export interface ReconciliationRun {
  id: string;
  firstDay: string;
  lastDay: string;
  /** The admin who asked for it; null for the daily schedule. */
  startedBy: number | null;
  /** "day/purchase id" of the last purchase done, when it was taken over. */
  resumeAfter: string | null;
  /** How many purchases it went through so far. */
  purchases: number;
}

export interface StoredFinding extends Finding {
  id: string;
  day: string;
}

/** Where runs and findings are kept (adapters/ledger/reconciliation-store.ts). */
export interface ReconciliationLedger {
  /** A new run held by `holder`; null when it is scheduled and the day's run exists already. */
  start(
    days: { first: string; last: string },
    startedBy: number | null,
    holder: string,
    leaseMs: number,
  ): Promise<ReconciliationRun | null>;
  /**
   * An unfinished run whose lease lapsed, now held by `holder`; never one of `working` (this
   * instance's own, whose lease lapsed while a purchase took long).
   */
  takeOver(
    holder: string,
    leaseMs: number,
    working: readonly string[],
  ): Promise<ReconciliationRun | null>;
  /**
   * A purchase done: its findings (an open one is not opened again; an earlier "could not be
   * asked" now asked is closed), the run's place and lease. False when the run is not held by
   * `holder` any more: nothing was written.
   */
  progress(
    run: { id: string; holder: string; leaseMs: number },
    day: string,
    purchaseId: string,
    findings: readonly Finding[],
  ): Promise<boolean>;
  /** Gives the run up at once (this instance stops), for another to take over. */
  leave(run: { id: string; holder: string }): Promise<void>;
  /** How many purchases the run went through; null when another holder has it. */
  finish(run: { id: string; holder: string }): Promise<number | null>;
  /** True for the one caller that may send the run's report. */
  claimReport(runId: string): Promise<boolean>;
  /** The report could not be sent: it is sent again by the next look at unreported runs. */
  unclaimReport(runId: string): Promise<void>;
  unreported(): Promise<ReconciliationRun[]>;
  /** How many findings of each kind are open on these days. */
  openCounts(first: string, last: string): Promise<Map<FindingKind, number>>;
  /** How many findings of these days the bot settled itself. */
  settledCount(first: string, last: string): Promise<number>;
  /** How many are open from days before `day`, and the oldest `listed` of them. */
  openBefore(day: string, listed: number): Promise<{ count: number; first: StoredFinding[] }>;
  /** Every open finding up to `last`, oldest day first, read a page at a time. */
  openUpTo(last: string): AsyncIterable<StoredFinding>;
  /** False when no open finding has this id. */
  resolve(id: string, by: number, note: string): Promise<boolean>;
}

/**
 * A finished run's report. However many findings are open, it holds their counts and a few of
 * the earlier days' ones: the file reads them all from the ledger as it is written.
 */
export interface ReconciliationReport {
  run: ReconciliationRun;
  purchases: number;
  /** Open findings of the run's days (found by this run or an earlier one), per kind. */
  counts: ReadonlyMap<FindingKind, number>;
  /** Findings of the run's days the bot settled itself (payments it had missed, now recorded). */
  settled: number;
  /** Still open from days before the run's first: how many, and the oldest few. */
  earlier: { count: number; first: readonly StoredFinding[] };
  drifts: BalanceDrift[];
  /** Every open finding of the report (the earlier days' first), page by page. */
  rows(): AsyncIterable<StoredFinding>;
}

/**
 * Settles a "paid, neither topped up nor refunded" finding through the payment path itself
 * (PaymentService.settleOffer): "applied", the payment now pays for its purchase (topped up);
 * "stray", it is recorded and owed back; null when nothing could be settled (it stays open).
 */
export type FindingSettler = (offer: {
  purchaseId: string;
  system: string;
  handle: string;
}) => Promise<"applied" | "stray" | null>;

/** Earlier days' findings named in the report's message; the rest are counted. */
const EARLIER_LISTED = 10;

interface RunOptions {
  /** This instance, as the holder of the runs it works on. */
  holder: string;
  /** A run whose holder wrote nothing for this long is taken over. */
  leaseMs: number;
}

/** The run was taken over by another instance while this one worked on it. */
class RunTakenOverError extends Error {
  override name = "RunTakenOverError";
}

/** This instance stops: the run is left where it is, for whichever instance looks next. */
class RunLeftError extends Error {
  override name = "RunLeftError";
}

export class Reconciliations {
  private readonly tasks: TaskGroup;
  /** The runs this instance works on. */
  private readonly working = new Set<string>();
  private stopping = false;

  constructor(
    private readonly ledger: ReconciliationLedger,
    private readonly sources: DaySources,
    private readonly drifts: (first: string, last: string) => Promise<BalanceDrift[]>,
    /** Sends a finished run's report (to its admin, or to every admin). */
    private readonly deliver: (report: ReconciliationReport) => Promise<void>,
    private readonly options: RunOptions,
    private readonly log: Log,
    private readonly settle?: FindingSettler,
  ) {
    this.tasks = new TaskGroup((error) => this.log.warn({ err: error }, "reconciliation stopped"));
  }

  /** An admin's run, worked on in the background; its report goes to that admin. */
  async request(days: { first: string; last: string }, admin: number): Promise<void> {
    const run = await this.ledger.start(days, admin, this.options.holder, this.options.leaseMs);
    if (run) this.tasks.track(this.work(run));
  }

  /** The schedule's run of `day`: nothing when some instance ran it (or runs it) already. */
  async scheduled(day: string): Promise<void> {
    const { holder, leaseMs } = this.options;
    const run = await this.ledger.start({ first: day, last: day }, null, holder, leaseMs);
    if (run) await this.work(run);
  }

  /** Runs left by an instance that died, taken over; reports that did not go out, sent. */
  async resume(): Promise<void> {
    while (!this.stopping) {
      const { holder, leaseMs } = this.options;
      const run = await this.ledger.takeOver(holder, leaseMs, [...this.working]);
      if (!run) break;
      await this.work(run);
    }
    for (const run of await this.ledger.unreported()) await this.report(run, run.purchases);
  }

  resolve(id: string, admin: number, note: string): Promise<boolean> {
    return this.ledger.resolve(id, admin, note);
  }

  /**
   * Leaves every run after the purchase under way: the ledger keeps where each is, and another
   * instance (or this one, started again) takes it over once its lease lapsed.
   */
  stop(): Promise<void> {
    this.stopping = true;
    return this.tasks.drain();
  }

  private async work(run: ReconciliationRun): Promise<void> {
    this.working.add(run.id);
    try {
      await this.workOn(run);
    } finally {
      this.working.delete(run.id);
    }
  }

  private async workOn(run: ReconciliationRun): Promise<void> {
    const held = { id: run.id, holder: this.options.holder, leaseMs: this.options.leaseMs };
    // "YYYY-MM-DD/<purchase id>": the day is the first ten characters.
    const resumeDay = run.resumeAfter?.slice(0, 10) ?? "";
    const resumeAfter = run.resumeAfter?.slice(11) ?? null;
    this.log.info({ run: run.id, first: run.firstDay, last: run.lastDay }, "reconciliation run");
    try {
      for (const day of daysBetween(run.firstDay, run.lastDay)) {
        if (day < resumeDay) continue;
        await reconcileDay(
          day,
          this.sources,
          async (found, purchaseId) => {
            if (this.stopping) throw new RunLeftError(`run ${run.id}`);
            const findings = await this.settled(run.id, found);
            if (!(await this.ledger.progress(held, day, purchaseId, findings))) {
              throw new RunTakenOverError(`run ${run.id}`);
            }
          },
          day === resumeDay ? resumeAfter : null,
        );
      }
    } catch (error) {
      if (error instanceof RunLeftError) await this.ledger.leave(held);
      throw error;
    }
    const purchases = await this.ledger.finish(held);
    if (purchases !== null) await this.report(run, purchases);
  }

  /** Each "paid, neither topped up nor refunded" the payment path settles now, with its note. */
  private async settled(runId: string, findings: readonly Finding[]): Promise<Finding[]> {
    const settle = this.settle;
    if (!settle) return [...findings];
    const done: Finding[] = [];
    for (const finding of findings) {
      const colon = finding.outsideIds.indexOf(":");
      if (finding.kind !== "paid-not-settled" || colon < 0) {
        done.push(finding);
        continue;
      }
      const result = await settle({
        purchaseId: finding.purchaseId,
        system: finding.outsideIds.slice(0, colon),
        handle: finding.outsideIds.slice(colon + 1),
      }).catch((error: unknown) => {
        this.log.warn({ err: error, purchaseId: finding.purchaseId }, "finding not settled");
        return null;
      });
      if (result === null) {
        done.push(finding);
        continue;
      }
      const what =
        result === "applied"
          ? "it pays for its purchase, whose top-up has started (its outcome is the purchase's)"
          : "it pays for nothing, owed back";
      this.log.info({ purchaseId: finding.purchaseId, result }, "reconciliation settled a payment");
      done.push({ ...finding, settled: `settled by run ${runId}: payment recorded; ${what}` });
    }
    return done;
  }

  private async report(run: ReconciliationRun, purchases: number): Promise<void> {
    if (!(await this.ledger.claimReport(run.id))) return;
    const days = { first: run.firstDay, last: run.lastDay };
    try {
      await this.deliver({
        run,
        purchases,
        counts: await this.ledger.openCounts(days.first, days.last),
        settled: await this.ledger.settledCount(days.first, days.last),
        earlier: await this.ledger.openBefore(days.first, EARLIER_LISTED),
        drifts: await this.drifts(days.first, days.last),
        rows: () => this.ledger.openUpTo(days.last),
      });
    } catch (error) {
      await this.ledger.unclaimReport(run.id);
      throw error;
    }
  }
}
