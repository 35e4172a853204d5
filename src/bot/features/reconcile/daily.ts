// RECONCILE_AT: yesterday's reconciliation at that time of day in the provider's zone, run once
// across replicas and restarts (the ledger holds one scheduled run per day) and sent to every
// admin. One missed because no instance ran at the time runs when the first one is up, until
// midnight. Whether or not it is set, runs left by an instance that died are taken over here
// once their lease lapsed, and reports that did not go out are sent.
import { DateTime } from "luxon";
import type { Log } from "../../../domain/ports.js";
import type { Reconciliations } from "../../../domain/reconciliation-runs.js";
import { RepeatingPass } from "../../../domain/repeating-pass.js";
import { yesterdayIn } from "./index.js";

interface ScheduleOptions {
  at: { hour: number; minute: number } | undefined;
  zone: string;
  /** How often runs whose holder died are looked for: the runs' lease. */
  lookEveryMs: number;
  /** A store away (an outage said once elsewhere): no stack for it, only its reason. */
  isTransient?: (error: unknown) => boolean;
}

export class ReconciliationSchedule {
  private readonly loop = new RepeatingPass(() => this.pass());

  constructor(
    private readonly runs: Reconciliations,
    private readonly options: ScheduleOptions,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.loop.start();
  }

  /** The run under way is left after its purchase, for whichever instance looks next. */
  async stop(): Promise<void> {
    const runs = this.runs.stop();
    await this.loop.stop();
    await runs;
  }

  /** Does what is due now; returns how long until it should look again. */
  async pass(): Promise<number> {
    const { at, zone, lookEveryMs } = this.options;
    let next = lookEveryMs;
    try {
      if (at) {
        const now = this.now();
        const due = DateTime.fromMillis(now, { zone }).set({ ...at, second: 0, millisecond: 0 });
        if (now >= due.toMillis()) await this.runs.scheduled(yesterdayIn(zone, now));
        else next = Math.min(next, due.toMillis() - now);
      }
      await this.runs.resume();
    } catch (error) {
      this.log.warn(
        this.options.isTransient?.(error) ? { reason: String(error) } : { err: error },
        "reconciliation not done yet",
      );
    }
    return next;
  }
}
