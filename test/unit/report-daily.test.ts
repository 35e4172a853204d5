import { describe, expect, it } from "vitest";
import { DailyReports } from "../../src/bot/features/report/daily.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import type { DailyReportClaim, DailyReportMarks, ReportPeriod } from "../../src/domain/report.js";
import { captureLogs } from "../support/log-capture.js";

const ZONE = "Asia/Kathmandu";
const ADMINS = [11, 12];
const LEASE_MS = 300_000;
/** Kathmandu time as epoch ms (5:45 ahead of UTC). */
const local = (iso: string) => Date.parse(`${iso}+05:45`);

/** Redis's claims in memory, leases lapsing on the test's clock. */
class Marks implements DailyReportMarks {
  readonly state = new Map<string, { sent: boolean; until: number }>();
  constructor(private readonly clock: () => number) {}

  async claim(day: string, admin: number, leaseMs: number): Promise<DailyReportClaim> {
    const key = `${day}:${admin}`;
    const held = this.state.get(key);
    if (held?.sent) return "sent";
    if (held && held.until > this.clock()) return "taken";
    this.state.set(key, { sent: false, until: this.clock() + leaseMs });
    return "claimed";
  }

  async markSent(day: string, admin: number): Promise<void> {
    this.state.set(`${day}:${admin}`, { sent: true, until: Number.POSITIVE_INFINITY });
  }
}

function setUp(start: string) {
  let now = local(start);
  const clock = () => now;
  const marks = new Marks(clock);
  const sent: [number, ReportPeriod][] = [];
  let failing = new Set<number>();
  const instance = () =>
    new DailyReports(
      marks,
      async (admin, period) => {
        if (failing.has(admin)) throw new Error("Telegram is away");
        sent.push([admin, period]);
      },
      {
        at: { hour: 7, minute: 30 },
        zone: ZONE,
        admins: ADMINS,
        leaseMs: LEASE_MS,
        retryMs: 60_000,
      },
      captureLogs().logger,
      clock,
    );
  return {
    sent,
    instance,
    at: (iso: string) => {
      now = local(iso);
    },
    fail: (admins: number[]) => {
      failing = new Set(admins);
    },
  };
}

const day = (d: string) => ({ first: d, last: d });

describe("the daily report", () => {
  it("waits for its time of day in the provider's zone", async () => {
    const test = setUp("2026-11-21T07:29:00");
    expect(await test.instance().pass()).toBe(60_000);
    expect(test.sent).toEqual([]);
  });

  it("sends yesterday's report to every admin once, whichever instances look", async () => {
    const test = setUp("2026-11-21T07:30:00");
    const [a, b] = [test.instance(), test.instance()];
    const [nextA, nextB] = await Promise.all([a.pass(), b.pass()]);
    expect(test.sent).toEqual([
      [11, day("2026-11-20")],
      [12, day("2026-11-20")],
    ]);
    // Each found the other's claim on one admin: they look again soon, then wait for tomorrow.
    expect([nextA, nextB]).toEqual([60_000, 60_000]);
    test.at("2026-11-21T07:31:00");
    expect(await a.pass()).toBe(86_400_000 - 60_000);
    // A restart later that day sends nothing again.
    test.at("2026-11-21T15:00:00");
    await test.instance().pass();
    expect(test.sent).toHaveLength(2);
  });

  it("sends a report missed at its time later the same day, never the next day", async () => {
    const test = setUp("2026-11-21T23:59:00");
    await test.instance().pass();
    expect(test.sent).toEqual([
      [11, day("2026-11-20")],
      [12, day("2026-11-20")],
    ]);
    // No instance ran on the 22nd: at 00:10 on the 23rd the 21st's report is not due yet, and
    // the 22nd's report goes out at 07:30.
    test.at("2026-11-23T00:10:00");
    expect(await test.instance().pass()).toBe((7 * 60 + 20) * 60_000);
    test.at("2026-11-23T07:31:00");
    await test.instance().pass();
    expect(test.sent.slice(2)).toEqual([
      [11, day("2026-11-22")],
      [12, day("2026-11-22")],
    ]);
  });

  it("tries an admin whose report failed again once its claim lapsed, and only that admin", async () => {
    const test = setUp("2026-11-21T08:00:00");
    test.fail([12]);
    const scheduler = test.instance();
    expect(await scheduler.pass()).toBe(60_000);
    expect(test.sent).toEqual([[11, day("2026-11-20")]]);
    test.fail([]);
    // Still claimed by the failed attempt.
    test.at("2026-11-21T08:01:00");
    expect(await scheduler.pass()).toBe(60_000);
    expect(test.sent).toHaveLength(1);
    test.at("2026-11-21T08:05:00");
    await scheduler.pass();
    expect(test.sent).toEqual([
      [11, day("2026-11-20")],
      [12, day("2026-11-20")],
    ]);
  });

  it("runs on its own timer from start to stop", async () => {
    const test = setUp("2026-11-21T09:00:00");
    const scheduler = test.instance();
    scheduler.start();
    for (let i = 0; i < 50 && test.sent.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await scheduler.stop();
    expect(test.sent).toHaveLength(2);
  });
});

describe("DAILY_REPORT_AT", () => {
  const env = {
    BOT_TOKEN: "123456:secret-bot-token",
    PROVIDER_BASE_URL: "http://127.0.0.1:8090",
    PROVIDER_TOKEN: "secret-provider-token",
    PAYMENT_MODE: "none",
    TOPUP_USER_IDS: "*",
  };

  it("is off unless set, and a time of day when set", () => {
    expect(loadConfig(env).dailyReportAt).toBeUndefined();
    expect(loadConfig({ ...env, DAILY_REPORT_AT: "" }).dailyReportAt).toBeUndefined();
    expect(loadConfig({ ...env, DAILY_REPORT_AT: "07:05" }).dailyReportAt).toEqual({
      hour: 7,
      minute: 5,
    });
    expect(loadConfig({ ...env, DAILY_REPORT_AT: "23:59" }).dailyReportAt).toEqual({
      hour: 23,
      minute: 59,
    });
  });

  it("refuses anything else, saying what it should be and not echoing it", () => {
    for (const value of ["7:05", "24:00", "12:60", "07:05:00", "noon"]) {
      let problems: string[] = [];
      try {
        loadConfig({ ...env, DAILY_REPORT_AT: value });
      } catch (error) {
        if (error instanceof ConfigError) problems = error.problems;
      }
      expect(problems, value).toEqual([
        "DAILY_REPORT_AT: must be a time of day as HH:MM (24-hour, in PROVIDER_TIMEZONE), such as 07:30",
      ]);
    }
  });
});
