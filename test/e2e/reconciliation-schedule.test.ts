// RECONCILE_AT end to end with real bot processes on one ledger and one Redis: yesterday's run
// is done once and reported once to every admin, with two instances racing for it and after
// restarts; a run cut short by SIGKILL is taken over by the next process where it stopped (no
// purchase asked about again but the one under way), and SIGTERM leaves a run at once for the
// next process to finish. The purchases are written straight into the ledger, each with a
// checkout id the provider sandbox holds no transaction for: the ledger calls them not charged,
// so the day is clean.
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerConnection } from "../../src/adapters/ledger/connection.js";
import { yesterdayIn } from "../../src/bot/features/reconcile/index.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { type BotProcess, type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { WEBHOOK_PATH } from "../support/dispatcher.js";
import { insertRows, ledgerRow } from "../support/ledger-rows.js";
import { captureLogs } from "../support/log-capture.js";
import { logged } from "../support/paying.js";
import { type Replica, startReplica } from "../support/replica.js";
import { until } from "../support/wait.js";

const ZONE = "Asia/Kathmandu";
/** "00:00" has passed today whatever the time: an instance finds yesterday's run due at start. */
const DAILY = { PROVIDER_TIMEZONE: ZONE, RECONCILE_AT: "00:00", RECONCILE_LEASE_SECONDS: "1" };

interface RunRow {
  first_day: string;
  purchases: number;
  resume_after: string | null;
  held_by: string;
  finished: boolean;
  reported: boolean;
  lapsed: boolean;
}

/** The stack's ledger, migrated before any bot starts, for writing the day's purchases. */
async function openLedger(stack: ProcessStack): Promise<LedgerConnection> {
  const ledger = new LedgerConnection(
    { kind: "postgres", url: stack.databaseUrl, poolSize: 2, statementTimeoutMs: 5_000 },
    { log: captureLogs().logger },
  );
  await ledger.open();
  return ledger;
}

/**
 * `count` purchases of `day` (a checkout token taken at noon in the zone), ids in the order a
 * run goes through them; their checkout ids, in the same order.
 */
async function purchasesOfDay(
  ledger: LedgerConnection,
  day: string,
  count: number,
): Promise<{ ids: string[]; checkouts: string[] }> {
  const noon = new Date(`${day}T12:00:00+05:45`);
  const ids = Array.from({ length: count }, (_, i) => `rec-${String(i + 1).padStart(3, "0")}`);
  const checkouts = ids.map((id) => `CO-${id}`);
  await insertRows(
    ledger.db,
    ids.map((id, i) =>
      ledgerRow({
        id,
        created_at: noon,
        phase: "not-charged",
        checkout_id: checkouts[i] as string,
        checkout_issued_at: noon,
      }),
    ),
  );
  await ledger.db
    .insertInto("purchase_checkouts")
    .values(
      ids.map((id, i) => ({
        purchase_id: id,
        checkout_id: checkouts[i] as string,
        taken_at: noon,
      })),
    )
    .execute();
  return { ids, checkouts };
}

async function runsOf(ledger: LedgerConnection): Promise<RunRow[]> {
  const { rows } = await sql<RunRow>`
    SELECT to_char(first_day, 'YYYY-MM-DD') AS first_day, purchases, resume_after, held_by,
      finished_at IS NOT NULL AS finished, reported_at IS NOT NULL AS reported,
      lease_until <= clock_timestamp() AS lapsed
    FROM reconciliation_runs WHERE scheduled ORDER BY id`.execute(ledger.db);
  return rows;
}

/** The checkout ids the sandbox was asked txn-status about, in order, from the `from`th request. */
function askedAbout(stack: ProcessStack, from = 0): string[] {
  return stack.sandbox.requests
    .slice(from)
    .filter((request) => request.operation === "txn-status")
    .map((request) => (request.body as { checkoutId: string }).checkoutId);
}

const cleanReport = (day: string, purchases: number) =>
  `✅ ${day}: every purchase matched (${purchases} purchases).`;

/** The reconciliation reports an admin received. */
const reportsTo = (admin: ChatUser) =>
  admin.messages().filter((message) => message.text?.startsWith("✅"));

async function stopBot(bot: BotProcess): Promise<void> {
  bot.child.kill("SIGTERM");
  await bot.exited;
}

describe("RECONCILE_AT with two instances and restarts", () => {
  const ADMINS = [99_410, 99_411];
  let stack: ProcessStack;
  let ledger: LedgerConnection;
  let admins: ChatUser[];
  const replica = () =>
    startReplica(stack, (base) => `${base}${WEBHOOK_PATH}`, {
      ...DAILY,
      ADMIN_USER_IDS: ADMINS.join(","),
    });

  beforeAll(async () => {
    stack = await startProcessStack("reconcile_daily");
    ledger = await openLedger(stack);
    admins = ADMINS.map((id) =>
      stack.emulator.user({ id, first_name: "Admin", language_code: "en" }),
    );
  }, 30_000);
  afterAll(async () => {
    await stack?.stop();
    await ledger?.close();
  });

  it("runs yesterday once and sends its report once to every admin", async () => {
    const day = yesterdayIn(ZONE, Date.now());
    const { checkouts } = await purchasesOfDay(ledger, day, 3);
    const expected = cleanReport(day, 3);
    const received = admins.map((admin) => admin.waitForText(expected, { timeoutMs: 20_000 }));
    // Both instances start at once: both find the run due.
    let replicas: Replica[] = await Promise.all([replica(), replica()]);
    await Promise.all(received);

    const once = async () => {
      await sleep(1_500); // more than a lease: every instance has looked again
      expect(admins.map((admin) => reportsTo(admin).length)).toEqual([1, 1]);
      expect(await runsOf(ledger)).toMatchObject([
        { first_day: day, purchases: 3, finished: true, reported: true },
      ]);
      // Each purchase asked about once: the instance that lost the race did nothing.
      expect(askedAbout(stack).sort()).toEqual([...checkouts].sort());
    };
    await once();
    // Both looked for it at start; one of them ran it.
    const ran = replicas.map((r) => logged(r.bot, "reconciliation run").length);
    expect(ran.sort()).toEqual([0, 1]);

    // One instance restarted.
    await stopBot(replicas[0]?.bot as BotProcess);
    replicas = [await replica(), replicas[1] as Replica];
    await once();

    // Both restarted.
    await Promise.all(replicas.map((r) => stopBot(r.bot)));
    replicas = await Promise.all([replica(), replica()]);
    await once();
    expect(admins.map((admin) => admin.messages().filter((m) => m.document).length)).toEqual([
      0, 0,
    ]);
  }, 90_000);
});

describe("a daily run cut short", () => {
  const ADMIN = 99_420;
  const PURCHASES = 30;
  let stack: ProcessStack;
  let ledger: LedgerConnection;
  let admin: ChatUser;
  /** A bot polling for updates, asking the sandbox `rate` times a second. */
  const bot = (rate: number) =>
    stack.startBot({
      ...DAILY,
      ADMIN_USER_IDS: String(ADMIN),
      RECONCILE_RATE_PER_SECOND: String(rate),
    });

  beforeAll(async () => {
    stack = await startProcessStack("reconcile_resume");
    ledger = await openLedger(stack);
    admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
  }, 30_000);
  afterAll(async () => {
    await stack?.stop();
    await ledger?.close();
  });

  /** Empties the ledger's runs and purchases and the sandbox's record, for the next case. */
  async function freshDay(): Promise<{ day: string; ids: string[]; checkouts: string[] }> {
    await sql`TRUNCATE reconciliation_findings, reconciliation_runs, payments, payment_offers,
      purchase_events, purchase_checkouts, purchases`.execute(ledger.db);
    stack.sandbox.reset();
    const day = yesterdayIn(ZONE, Date.now());
    return { day, ...(await purchasesOfDay(ledger, day, PURCHASES)) };
  }

  it("SIGKILLed mid-run: the next process takes it over where it stopped and reports once", async () => {
    const { day, ids, checkouts } = await freshDay();
    const first = bot(5);
    await until(() => askedAbout(stack).length >= 8, 20_000);
    first.child.kill("SIGKILL");
    await first.exited;
    const [left] = await runsOf(ledger);
    expect(left).toMatchObject({ first_day: day, finished: false, reported: false });
    const done = left?.purchases ?? 0;
    expect(done).toBeGreaterThanOrEqual(7);
    expect(done).toBeLessThan(PURCHASES);
    expect(left?.resume_after).toBe(`${day}/${ids[done - 1]}`);
    expect(reportsTo(admin)).toHaveLength(0);

    const killedAt = stack.sandbox.requests.length;
    const report = admin.waitForText(cleanReport(day, PURCHASES), { timeoutMs: 15_000 });
    const second = bot(50);
    await report;
    await sleep(1_500);
    expect(reportsTo(admin)).toHaveLength(1);
    const [finished] = await runsOf(ledger);
    expect(finished).toMatchObject({
      purchases: PURCHASES,
      resume_after: `${day}/${ids.at(-1)}`,
      finished: true,
      reported: true,
    });
    expect(finished?.held_by).not.toBe(left?.held_by);
    // The second process began after the last purchase written: the ones done before are
    // never asked about again (the one under way when the first was killed may be).
    expect(askedAbout(stack, killedAt)).toEqual(checkouts.slice(done));
    expect(new Set(askedAbout(stack))).toEqual(new Set(checkouts));
    await stopBot(second);
  }, 60_000);

  it("SIGTERMed mid-run: the process stops at once, and the next one finishes the run", async () => {
    const { day, ids, checkouts } = await freshDay();
    const reportsBefore = reportsTo(admin).length;
    const first = bot(2);
    await until(() => askedAbout(stack).length >= 3, 20_000);
    const termAt = Date.now();
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    // At 2 calls a second the whole day takes 15 s: it stopped after the call under way.
    expect(Date.now() - termAt).toBeLessThan(3_000);
    const [left] = await runsOf(ledger);
    const done = left?.purchases ?? 0;
    expect(left).toMatchObject({ finished: false, reported: false, lapsed: true });
    expect(done).toBeGreaterThanOrEqual(2);
    expect(done).toBeLessThan(PURCHASES);
    expect(left?.resume_after).toBe(`${day}/${ids[done - 1]}`);
    expect(reportsTo(admin)).toHaveLength(reportsBefore);

    const stoppedAt = stack.sandbox.requests.length;
    const report = admin.waitForText(cleanReport(day, PURCHASES), { timeoutMs: 15_000 });
    const second = bot(50);
    await report;
    await sleep(1_500);
    expect(reportsTo(admin)).toHaveLength(reportsBefore + 1);
    expect(await runsOf(ledger)).toMatchObject([
      {
        purchases: PURCHASES,
        resume_after: `${day}/${ids.at(-1)}`,
        finished: true,
        reported: true,
      },
    ]);
    expect(askedAbout(stack, stoppedAt)).toEqual(checkouts.slice(done));
    await stopBot(second);
  }, 60_000);
});
