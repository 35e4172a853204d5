// Which daily reports went out: one key per day and admin, "sending" under a lease while its
// report is sent (SET NX PX: one instance takes it), then "sent" for a week.
import type { Redis } from "ioredis";
import type { DailyReportClaim, DailyReportMarks } from "../../domain/report.js";
import type { RedisKeys } from "./keys.js";

/** Long past the day on which the report could still be sent. */
const SENT_TTL_SECONDS = 7 * 86_400;

export class RedisDailyReportMarks implements DailyReportMarks {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async claim(day: string, admin: number, leaseMs: number): Promise<DailyReportClaim> {
    const key = this.keys.dailyReport(day, admin);
    if (await this.redis.set(key, "sending", "PX", leaseMs, "NX")) return "claimed";
    return (await this.redis.get(key)) === "sent" ? "sent" : "taken";
  }

  async markSent(day: string, admin: number): Promise<void> {
    await this.redis.set(this.keys.dailyReport(day, admin), "sent", "EX", SENT_TTL_SECONDS);
  }
}
