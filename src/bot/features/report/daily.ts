// The daily report (DAILY_REPORT_AT): yesterday's report to every admin at that time of day in
// the provider's zone, once per admin across replicas and restarts. Each admin's report is
// claimed in Redis for a while before it is sent and marked sent after: a claim whose sender
// died lapses, and the report is sent by whoever looks next. One missed because no instance
// ran at the time is sent by the first one up until midnight; after that, /report <day>.
import { DateTime } from "luxon";
import type { Clock, Log } from "../../../domain/ports.js";
import { RepeatingPass } from "../../../domain/repeating-pass.js";
import type { DailyReportMarks, ReportPeriod } from "../../../domain/report.js";
import { daysBefore, today } from "./period.js";

interface DailyReportOptions {
  at: { hour: number; minute: number };
  zone: string;
  admins: number[];
  /** How long a claim holds while its report is sent; one that failed is tried after it. */
  leaseMs?: number;
  /** How soon to look again while some admin's report is claimed elsewhere or failed. */
  retryMs?: number;
}

/** Looked at again at least this often, whatever the clock did meanwhile. */
const MAX_SLEEP_MS = 3_600_000;

export class DailyReports {
  private readonly loop = new RepeatingPass(() => this.pass(), MAX_SLEEP_MS);

  constructor(
    private readonly marks: DailyReportMarks,
    private readonly deliver: (admin: number, period: ReportPeriod) => Promise<void>,
    private readonly options: DailyReportOptions,
    private readonly log: Log,
    private readonly now: Clock = Date.now,
  ) {}

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Sends what is due now; returns how long until it should look again. */
  async pass(): Promise<number> {
    const { zone, at, admins, leaseMs = 300_000, retryMs = 60_000 } = this.options;
    const now = this.now();
    const due = DateTime.fromMillis(now, { zone }).set({
      hour: at.hour,
      minute: at.minute,
      second: 0,
      millisecond: 0,
    });
    if (now < due.toMillis()) return due.toMillis() - now;
    const day = daysBefore(today(zone, now), 1);
    let unfinished = false;
    for (const admin of admins) {
      try {
        const claim = await this.marks.claim(day, admin, leaseMs);
        if (claim === "claimed") {
          await this.deliver(admin, { first: day, last: day });
          await this.marks.markSent(day, admin);
          this.log.info({ day, admin }, "daily report sent");
        } else unfinished ||= claim === "taken";
      } catch (error) {
        unfinished = true;
        this.log.warn({ err: error, day, admin }, "daily report not sent yet");
      }
    }
    return unfinished ? retryMs : due.plus({ days: 1 }).toMillis() - now;
  }
}
