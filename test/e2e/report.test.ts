// Finance reports end to end: real top-ups through the bot and purchases written straight into
// the ledger; /report as the admin receives it (the message, the CSV file, the chart); Redis
// flushed; bad input and strangers; the daily report with two instances and a restart.
import type { Message } from "grammy/types";
import { Redis } from "ioredis";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerTables } from "../../src/adapters/ledger/schema.js";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { type App, createApp } from "../../src/app.js";
import { daysBefore, today } from "../../src/bot/features/report/period.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import { loadConfig } from "../../src/config.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { parseCsv } from "../support/csv.js";
import {
  insertPayments,
  insertRows,
  ledgerRow,
  paidLedgerRow,
  paymentOf,
} from "../support/ledger-rows.js";
import { captureLogs } from "../support/log-capture.js";
import { deleteByPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { type Stack, startStack } from "../support/stack.js";

const ZONE = "Asia/Kathmandu";
const ADMIN = 99_300;
const fmt = new ValueFormatter("en", ZONE, "NPR");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Noon of a day in Kathmandu, as the ledger keeps it. */
const noonOf = (day: string) => new Date(`${day}T12:00:00+05:45`);

function ledgerOf(stack: Stack): Kysely<LedgerTables> {
  const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 2 });
  return new Kysely<LedgerTables>({ dialect: new PostgresDialect({ pool }) });
}

interface Received {
  summary: Message;
  csv: string;
  csvName: string | undefined;
  chart: Buffer;
  chartCaption: string | undefined;
}

/** The three parts of a report, in the order they come. */
function nextReport(stack: Stack, user: ChatUser, title = "Finance report"): Promise<Received> {
  const timeoutMs = 30_000;
  const summary = user.waitForText(title, { timeoutMs });
  const file = user.waitForMessage((m) => m.document !== undefined, { timeoutMs });
  const photo = user.waitForMessage((m) => m.photo !== undefined, { timeoutMs });
  const bytes = (fileId = "") => stack.emulator.file(fileId)?.upload?.bytes ?? Buffer.alloc(0);
  return Promise.all([summary, file, photo]).then(([text, document, chart]) => ({
    summary: text,
    csv: bytes(document.document?.file_id).toString("utf8"),
    csvName: document.document?.file_name,
    chart: bytes(chart.photo?.[0]?.file_id),
    chartCaption: chart.caption,
  }));
}

async function askReport(stack: Stack, user: ChatUser, text = "/report"): Promise<Received> {
  const report = nextReport(stack, user);
  user.sendText(text);
  return report;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("/report", () => {
  let stack: Stack;
  let admin: ChatUser;
  let ledger: Kysely<LedgerTables>;
  let day: string;

  beforeAll(async () => {
    stack = await startStack("report", {
      ADMIN_USER_IDS: String(ADMIN),
      PROVIDER_TIMEZONE: ZONE,
    });
    admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
    ledger = ledgerOf(stack);
    day = today(ZONE, Date.now());
    // Real top-ups of every service, through the bot and the provider.
    const codes = ["8000000011", "hari.gurung", "bikash.rai", "bikash.iptv"];
    for (const [i, code] of codes.entries()) {
      const user = stack.emulator.user({ id: 7_300 + i, first_name: "Buyer", language_code: "en" });
      await expectReply(user, () => user.sendText(`/topup ${code}`), "Choose a package");
      await expectReply(user, () => user.press(/Renew/), "Please confirm");
      await expectReply(user, () => user.press(/Confirm/), "Top-up successful", 10_000);
    }
    // The outcomes a sandbox run would take long to make, and a sale of an earlier day.
    await insertRows(ledger, [
      ledgerRow({
        created_at: noonOf(day),
        phase: "not-charged",
        reason: "declined",
        price: "500",
      }),
      ledgerRow({ created_at: noonOf(day), phase: "not-charged", price: "300" }),
      ledgerRow({ created_at: noonOf(day), phase: "unknown", price: "100" }),
      ledgerRow({ created_at: noonOf(day), phase: "requested", price: "50" }),
      ledgerRow({ created_at: noonOf(day), phase: "created", price: "25" }),
      ledgerRow({ created_at: noonOf(daysBefore(day, 3)), price: "700" }),
    ]);
  }, 90_000);
  afterAll(async () => {
    await ledger?.destroy();
    await stack?.stop();
  });

  it("sends the day's numbers, a CSV whose charged lines are the provider's top-ups, and a chart", async () => {
    const report = await askReport(stack, admin);
    expect(report.csvName).toBe(`report-${day}.csv`);
    const topups = stack.sandbox.topups;
    expect(topups).toHaveLength(4);
    const cents = (amounts: number[]) =>
      amounts.reduce((sum, amt) => sum + Math.round(amt * 100), 0);
    const money = (amounts: number[]) => fmt.amount((cents(amounts) / 100).toFixed(2));
    const ofService = (service: string) => topups.filter((t) => t.service === service);
    const text = report.summary.text ?? "";
    const lines = text.split("\n");
    expect(lines[0]).toBe(`📊 Finance report ${day}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        `✅ Charged: 4 · ${money(topups.map((t) => t.amt))}`,
        `⛔ Declined by the provider: 1 · ${fmt.amount("500")}`,
        `↩️ Not charged, other reasons: 1 · ${fmt.amount("300")}`,
        `❓ Still unknown: 2 · ${fmt.amount("150")}`,
        `⏳ Not sent to the provider yet: 1 · ${fmt.amount("25")}`,
        `TV: 1 · ${money(ofService("tv").map((t) => t.amt))}`,
        `Internet: 2 · ${money(ofService("internet").map((t) => t.amt))}`,
        `IPTV: 1 · ${money(ofService("iptv").map((t) => t.amt))}`,
        `🔓 Open right now (of any day): 3 · ${fmt.amount("175")}`,
      ]),
    );
    // Nobody pays in the bot here: every charge is an agent's, said so by method.
    expect(lines).toEqual(
      expect.arrayContaining([
        "Charged, owed back and refunded, by payment method",
        `No payment in the bot (agent): ✅ 4 · ${money(topups.map((t) => t.amt))}`,
      ]),
    );
    // Every amount with the currency and the locale's separators: the balance expected, below
    // zero after four top-ups and no deposit, too.
    expect(cents(topups.map((t) => t.amt))).toBeGreaterThanOrEqual(100_000);
    expect(lines.find((line) => line.startsWith("✅ Charged"))).toMatch(
      /^✅ Charged: 4 · NPR\s\d{1,3}(,\d{3})+\.\d\d$/,
    );
    expect(lines.at(-1)).toMatch(
      /^💰 Expected balance at the provider: -NPR\s\d{1,3}(,\d{3})+\.\d\d$/,
    );
    const sellers = lines.filter((line) => /^\d+\. /.test(line));
    expect(sellers[0]).toMatch(/^1\. /);
    expect(sellers).toHaveLength(4);
    for (const topup of topups) {
      expect(sellers.some((line) => line.includes(`(${topup.bouquetId}): 1 · `))).toBe(true);
    }

    // Every purchase of the day, the charged ones exactly the provider's executed top-ups.
    const rows = parseCsv(report.csv);
    expect(rows).toHaveLength(9);
    const charged = rows.filter((row) => row.outcome === "charged");
    const byTxn = (a: { txnId?: string }, b: { txnId?: string }) =>
      String(a.txnId).localeCompare(String(b.txnId));
    expect(
      charged
        .map((row) => ({
          txnId: row.provider_txn_id,
          orderId: row.checkout_id,
          amount: Number(row.amount),
          cuid: row.customer_id,
          reqId: row.connection,
          bouquetId: row.bouquet_code,
          service: row.service,
          reference: row.our_reference,
        }))
        .sort(byTxn),
    ).toEqual(
      topups
        .map((t) => ({
          txnId: t.txnId,
          orderId: t.orderId,
          amount: t.amt,
          cuid: t.cuid,
          reqId: t.reqId,
          bouquetId: t.bouquetId,
          service: t.service,
          reference: t.udf1,
        }))
        .sort(byTxn),
    );
    expect(rows.map((row) => row.outcome).sort()).toEqual([
      "charged",
      "charged",
      "charged",
      "charged",
      "declined",
      "not-charged",
      "pending",
      "unknown",
      "unknown",
    ]);
    for (const row of rows) {
      expect(row.time).toMatch(new RegExp(`^${day}T\\d\\d:\\d\\d:\\d\\d(\\.\\d{3})?\\+05:45$`));
      expect(row.currency).toBe("NPR");
    }
    // No names, no phone numbers.
    for (const secret of ["Ram", "Thapa", "Hari", "Gurung", "Bikash", "9801000003", "9811000005"]) {
      expect(report.csv).not.toContain(secret);
    }
    expect(report.chart.subarray(0, 8)).toEqual(PNG);
    expect(report.chart.length).toBeGreaterThan(5_000);
    // The last 30 days up to the day, named in the caption.
    expect(report.chartCaption).toBe(`Charged per day, ${daysBefore(day, 29)} – ${day}`);
  }, 60_000);

  it("gives the same report after Redis lost everything: the ledger is the source", async () => {
    const before = await askReport(stack, admin, `/report ${day}`);
    const redis = new Redis(TEST_REDIS_URL);
    await deleteByPrefix(redis, stack.env.REDIS_KEY_PREFIX as string);
    redis.disconnect();
    const after = await askReport(stack, admin, `/report ${day}`);
    expect(after.summary.text).toBe(before.summary.text);
    expect(after.csv).toBe(before.csv);
  }, 60_000);

  it("reports a range with the day three days back in it", async () => {
    const first = daysBefore(day, 3);
    const report = await askReport(stack, admin, `/report ${first}..${day}`);
    expect(report.summary.text?.split("\n")[0]).toBe(`📊 Finance report ${first} – ${day}`);
    expect(report.csvName).toBe(`report-${first}_${day}.csv`);
    expect(report.summary.text).toContain("✅ Charged: 5 · ");
    expect(parseCsv(report.csv)).toHaveLength(10);
  }, 60_000);

  it("lists /report in the admin's own command menu, not in everyone's", () => {
    const menus = stack.emulator.calls("setMyCommands").map((call) => ({
      scope: call.payload.scope as { type: string; chat_id?: number },
      commands: (call.payload.commands as { command: string }[]).map((c) => c.command),
    }));
    const admins = menus.filter((menu) => menu.scope.chat_id === ADMIN);
    expect(admins).toHaveLength(2); // English and Nepali
    for (const menu of admins) expect(menu.commands).toContain("report");
    for (const menu of menus.filter((m) => m.scope.type === "all_private_chats")) {
      expect(menu.commands).not.toContain("report");
    }
  });

  it("answers bad input, and anyone but an admin, with one message and nothing else", async () => {
    const stranger = stack.emulator.user({ id: 7_399, first_name: "Nosy", language_code: "en" });
    const cases: [ChatUser, string, string][] = [
      [admin, "/report yesterday", "That is not a day or a range of days"],
      [admin, "/report 2026-02-30", "That is not a day or a range of days"],
      [admin, "/report 2026-11-30..2026-11-01", "The range ends before it starts"],
      [admin, "/report 2020-01-01..2026-01-01", "at most 366 days"],
      [admin, "/report 2999-01-01", `That day has not come yet: today is ${day} (${ZONE})`],
      [stranger, "/report", "Sorry, this command is for administrators only."],
      [stranger, `/report ${day}`, "Sorry, this command is for administrators only."],
    ];
    for (const [user, command, answer] of cases) {
      const before = user.messages().length;
      const sent = () => ["sendDocument", "sendPhoto"].map((m) => stack.emulator.calls(m).length);
      const files = sent();
      await expectReply(user, () => user.sendText(command), answer);
      await sleep(400);
      expect(
        user
          .messages()
          .slice(before)
          .map((m) => m.text),
      ).toEqual([expect.stringContaining(answer)]);
      expect(sent()).toEqual(files);
    }
  }, 30_000);

  it("speaks Nepali to an admin who chose it", async () => {
    await expectReply(admin, () => admin.sendText("/language"), "Choose your language");
    await expectReply(admin, () => admin.press("नेपाली"), "भाषा नेपालीमा परिवर्तन भयो");
    const report = nextReport(stack, admin, "वित्तीय रिपोर्ट");
    admin.sendText("/report");
    const { summary, chartCaption } = await report;
    expect(summary.text).toContain("✅ शुल्क लागेको: ४ · ");
    // The locale's digits and separators, with the currency: "नेरू ४,१६५.००", "-नेरू …".
    expect(summary.text).toMatch(
      /✅ शुल्क लागेको: ४ · नेरू\s[०-९]{1,2}(,[०-९]{2})*,[०-९]{3}\.[०-९]{2}\n/,
    );
    expect(summary.text).toMatch(/💰 प्रदायकमा अपेक्षित ब्यालेन्स: -नेरू\s[०-९,]+\.[०-९]{2}$/);
    expect(summary.text).toContain("\n१. ");
    expect(chartCaption).toContain("दैनिक शुल्क लागेको रकम");
  }, 60_000);

  it("adds the day's payments, and each purchase's payment at the end of its line", async () => {
    const first = daysBefore(day, 6);
    const refunded = paidLedgerRow({
      created_at: noonOf(first),
      phase: "refunded",
      reason: "declined",
      price: "700",
    });
    await insertRows(ledger, [refunded]);
    await insertPayments(ledger, [paymentOf(refunded)]);
    // In Nepali, as the admin chose above.
    const report = nextReport(stack, admin, "वित्तीय रिपोर्ट");
    admin.sendText(`/report ${first}`);
    const { summary, csv } = await report;
    const lines = summary.text?.split("\n") ?? [];
    const rupees = new ValueFormatter("ne", ZONE, "NPR").amount("700.00");
    expect(lines).toEqual(
      expect.arrayContaining([
        `💸 तिरिएको, टप-अप नभएको, फिर्ता गरिएको: १ · ${rupees}`,
        "💳 बोटमा भएका भुक्तानी, यी दिनहरूमा प्राप्त",
        `प्राप्त: १ · ${rupees}`,
        `फिर्ता गरिएको: १ · ${rupees}`,
      ]),
    );
    expect(lines).toContain(
      `Telegram Payments (कार्ड): ✅ ० · ${new ValueFormatter("ne", ZONE, "NPR").amount("0.00")}; 💸 फिर्ता गरिएको १ · ${rupees}`,
    );
    expect(parseCsv(csv)).toEqual([
      expect.objectContaining({
        purchase_id: refunded.id,
        outcome: "refunded",
        payment_method: "telegram",
        amount_paid: "700.00",
        payment_charge_id: refunded.payment_charge_id,
        provider_charge_id: refunded.payment_provider_charge_id,
        refund: "refunded",
      }),
    ]);
  }, 60_000);

  it("totals each payment method, and names each line's method and references in the file", async () => {
    const first = daysBefore(day, 8);
    const khalti = { payment_method: "khalti" };
    const card = paidLedgerRow({ created_at: noonOf(first), price: "700" });
    const wallet = paidLedgerRow({ created_at: noonOf(first), ...khalti, price: "1000" });
    const owed = paidLedgerRow({
      created_at: noonOf(first),
      ...khalti,
      phase: "refund-due",
      reason: "declined",
      price: "500",
    });
    const agent = ledgerRow({ created_at: noonOf(first), price: "300" });
    await insertRows(ledger, [card, wallet, owed, agent]);
    await insertPayments(ledger, [
      paymentOf(card),
      paymentOf(wallet, { method: "khalti" }),
      paymentOf(owed, { method: "khalti" }),
    ]);
    await expectReply(
      admin,
      () => admin.sendText("/language"),
      /Choose your language|भाषा छान्नुहोस्/,
    );
    await expectReply(admin, () => admin.press("English"), /English/);
    const { summary, csv } = await askReport(stack, admin, `/report ${first}`);
    const lines = summary.text?.split("\n") ?? [];
    const from = lines.indexOf("Charged, owed back and refunded, by payment method");
    expect(lines.slice(from + 1, from + 4)).toEqual([
      `Khalti: ✅ 1 · ${fmt.amount("1000.00")}; 💸 owed back 1 · ${fmt.amount("500.00")}`,
      `Telegram Payments (card): ✅ 1 · ${fmt.amount("700.00")}`,
      `No payment in the bot (agent): ✅ 1 · ${fmt.amount("300.00")}`,
    ]);
    const rows = parseCsv(csv);
    const byId = new Map(rows.map((row) => [row.purchase_id, row]));
    const columns = (id: string) => {
      const row = byId.get(id);
      return [row?.payment_method, row?.payment_charge_id, row?.provider_charge_id, row?.refund];
    };
    expect(columns(wallet.id)).toEqual([
      "khalti",
      wallet.payment_charge_id,
      wallet.payment_provider_charge_id,
      "none",
    ]);
    expect(columns(owed.id)).toEqual([
      "khalti",
      owed.payment_charge_id,
      owed.payment_provider_charge_id,
      "due",
    ]);
    expect(columns(card.id)).toEqual([
      "telegram",
      card.payment_charge_id,
      card.payment_provider_charge_id,
      "none",
    ]);
    // The agent's top-up asked for no payment: nothing in the payment's columns.
    expect(columns(agent.id)).toEqual(["", "", "", ""]);
    // The payment's columns stay last, after those of old, in their order.
    expect(Object.keys(rows[0] ?? {}).slice(-5)).toEqual([
      "payment_method",
      "amount_paid",
      "payment_charge_id",
      "provider_charge_id",
      "refund",
    ]);
  }, 60_000);
});

describe("DAILY_REPORT_AT", () => {
  const ADMINS = [99_310, 99_311];
  let stack: Stack;
  let ledger: Kysely<LedgerTables>;
  const apps: App[] = [];
  const daily = () => {
    const app = createApp(
      loadConfig({ ...stack.env, DAILY_REPORT_AT: "00:00" }),
      captureLogs().logger,
    );
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    stack = await startStack("report-daily", {
      ADMIN_USER_IDS: ADMINS.join(","),
      PROVIDER_TIMEZONE: ZONE,
    });
    ledger = ledgerOf(stack);
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await ledger?.destroy();
    await stack?.stop();
  });

  it("sends yesterday's report to every admin once, with two instances and after a restart", async () => {
    const yesterday = daysBefore(today(ZONE, Date.now()), 1);
    await insertRows(ledger, [
      ledgerRow({ created_at: noonOf(yesterday), price: "700" }),
      ledgerRow({ created_at: noonOf(yesterday), price: "65.5", service: "internet" }),
    ]);
    const admins = ADMINS.map((id) =>
      stack.emulator.user({ id, first_name: "Admin", language_code: "en" }),
    );
    const reports = admins.map((user) => nextReport(stack, user));
    // "00:00" has just passed today, whatever the time: both instances find it due at start.
    await Promise.all([daily().start(), daily().start()]);
    for (const report of await Promise.all(reports)) {
      expect(report.summary.text?.split("\n")[0]).toBe(`📊 Finance report ${yesterday}`);
      expect(report.summary.text).toContain(`✅ Charged: 2 · ${fmt.amount("765.50")}`);
      expect(report.summary.text).toContain(
        `No payment in the bot (agent): ✅ 2 · ${fmt.amount("765.50")}`,
      );
      expect(parseCsv(report.csv)).toHaveLength(2);
      expect(report.chart.subarray(0, 8)).toEqual(PNG);
    }
    const count = () =>
      admins.map((user) => [
        user.messages().filter((m) => m.text?.startsWith("📊")).length,
        user.messages().filter((m) => m.document).length,
        user.messages().filter((m) => m.photo).length,
      ]);
    await sleep(1_500);
    expect(count()).toEqual([
      [1, 1, 1],
      [1, 1, 1],
    ]);

    // A restart of both the same day sends nothing again.
    await Promise.all(apps.splice(0).map((app) => app.stop()));
    await daily().start();
    await sleep(1_500);
    expect(count()).toEqual([
      [1, 1, 1],
      [1, 1, 1],
    ]);
    const redis = new Redis(TEST_REDIS_URL);
    const keys = redisKeys(stack.env.REDIS_KEY_PREFIX as string);
    for (const admin of ADMINS) {
      expect(await redis.get(keys.dailyReport(yesterday, admin))).toBe("sent");
    }
    redis.disconnect();
  }, 60_000);
});
