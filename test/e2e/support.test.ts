// Support staff lookups from group chats, end to end: the real bot through the Telegram
// emulator, against the provider sandbox and real Redis.
import { setTimeout as sleep } from "node:timers/promises";
import type { Message } from "grammy/types";
import { Redis } from "ioredis";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerTables } from "../../src/adapters/ledger/schema.js";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisAuditLog } from "../../src/adapters/redis/support-audit.js";
import type { StoredAuditRecord } from "../../src/domain/support-audit.js";
import type { ChatUser, GroupDriver } from "../../tools/telegram-emulator/index.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import { insertRows, paidLedgerRow } from "../support/ledger-rows.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { type Stack, startStack } from "../support/stack.js";

const SUPPORT = -1009001;
const SUPPORT_TOO = -1009004;
const OTHER = -1009002;
const ELSEWHERE = -1009003;
const AGENT = 5001;
const NEPALI_AGENT = 5005;

let stack: Stack;
let redis: Redis;
let audit: RedisAuditLog;
let support: GroupDriver;
let agent: ChatUser;
let botUsername: string;

beforeAll(async () => {
  // Short-lived tokens: a top-up that did not happen is known to be not charged once its
  // token expired.
  stack = await startStack(
    "support",
    {
      SUPPORT_CHAT_IDS: `${SUPPORT}, ${SUPPORT_TOO}`,
      // The agents are staff; other members of the group are not (staff-roles.test.ts).
      STAFF_USER_IDS: `${AGENT}, ${NEPALI_AGENT}`,
      CHECKOUT_TTL_SECONDS: "3",
      CHECKOUT_SAFETY_MARGIN_SECONDS: "1",
    },
    { checkoutTtlMs: 3_000 },
  );
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
  audit = new RedisAuditLog(redis, redisKeys(stack.env.REDIS_KEY_PREFIX as string));
  support = stack.emulator.group({ id: SUPPORT, title: "Support desk", type: "supergroup" });
  agent = support.member({ id: AGENT, first_name: "Agent", language_code: "en" });
  const me = stack.emulator.calls("getMe")[0]?.response;
  botUsername = me?.ok ? (me.result as { username: string }).username : "";
});
afterAll(async () => {
  redis.disconnect();
  await stack.stop();
});

const botMessages = (chatId: number) =>
  stack.emulator.messages(chatId).filter((entry) => entry.sentByBot);

const logEntries = () =>
  stack.logs().map((line) => JSON.parse(line) as Record<string, unknown> & { msg?: string });

/** Waits until at least `count` log entries match. */
async function waitForLogs(
  matches: (entry: Record<string, unknown>) => boolean,
  count = 1,
  timeoutMs = 3_000,
): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = logEntries().filter(matches);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`expected ${count} matching log lines`);
    await sleep(20);
  }
}

/** Audit records written after `afterId` (a stream id), oldest first. */
async function auditSince(afterId: string | undefined): Promise<StoredAuditRecord[]> {
  const latest = await audit.latest(100);
  const fresh = afterId === undefined ? latest : latest.filter((r) => r.id > afterId);
  return fresh.reverse();
}

const lastAuditId = async () => (await audit.latest(1))[0]?.id;

describe("support lookups in an allow-listed group", () => {
  it("show the full card: name, status, every connection and its subscriptions, listed in parallel", async () => {
    stack.sandbox.setFault("get-subscription-package", { kind: "latency", ms: 200, times: 3 });
    const before = stack.sandbox.requests.length;
    let command: Message | undefined;
    const card = await expectReply(
      agent,
      () => {
        command = agent.sendText("/lookup 1000002");
      },
      "Sita Sharma",
    );
    expect(card.text).toContain("Customer 1000002 · active");
    // One card for one /lookup, also once every listing is in.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cards = botMessages(SUPPORT).filter((m) => m.message.text?.includes("Sita Sharma"));
    expect(cards).toHaveLength(1);
    expect(card.text).toContain("TV 8000000021 · active");
    expect(card.text).toContain("TV 8000000022 · active");
    expect(card.text).toContain("TV 8000000023 · inactive");
    expect(card.text).toMatch(/• Gold HD – until \d+ \w+ \d{4}.*, expires in 120 days/);
    expect(card.text).toMatch(/• Sports HD – until .+, expired 5 days ago/);
    expect(card.text).toMatch(/• Silver – until .+, expired 10 days ago/);
    expect(card.text).toMatch(/• Basic – until .+, expired 60 days ago/);
    expect(card.text).not.toContain("(MONTHLY)");
    expect(card.reply_to_message?.message_id).toBe(command?.message_id);

    // Every connection was listed, all of them before the first (200 ms late) answer came.
    const listings = stack.sandbox.requests
      .slice(before)
      .filter((request) => request.operation === "get-subscription-package");
    expect(listings.map((r) => (r.body as { reqId: string }).reqId).sort()).toEqual([
      "8000000021",
      "8000000022",
      "8000000023",
    ]);
    const arrivals = listings.map((r) => r.at.getTime());
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(150);

    expect(buttonsOf(agent, card)).toEqual(["🔄 Refresh"]);
    const data = card.reply_markup?.inline_keyboard[0]?.[0];
    const callbackData = data && "callback_data" in data ? (data.callback_data ?? "") : "";
    expect(Buffer.byteLength(callbackData)).toBeLessThanOrEqual(64);
    expect(callbackData).not.toContain("1000002");
  });

  it("render names with HTML special characters, and answer /lookup@botname", async () => {
    expect(botUsername).not.toBe("");
    const card = await expectReply(
      agent,
      () => agent.sendText(`/lookup@${botUsername} 1000008`),
      "Customer 1000008",
    );
    expect(card.text).toContain("Seán O'Brien <Ltd> & Sons");
    expect(card.entities).toContainEqual({ type: "bold", offset: 0, length: 25 });
    expect(card.text).toMatch(/• Festival Special HD Bundle – until .+, expires in 2 days/);
    expect(card.text).toMatch(/• Kids – until .+, expires in 25 days/);
  });

  it("speak Nepali to staff whose Telegram is in Nepali, and explain unknown codes", async () => {
    const nepali = support.member({ id: NEPALI_AGENT, first_name: "Sahayak", language_code: "ne" });
    const card = await expectReply(
      nepali,
      () => nepali.sendText("/lookup 1000003"),
      "ग्राहक 1000003",
    );
    expect(card.text).toContain("Hari Gurung");
    expect(card.text).toContain("इन्टरनेट hari.gurung");
    const all = await expectReply(agent, () => agent.sendText("/lookup 1000010"), "Kiran Magar");
    expect(all.text).toContain("TV 8000000101 · active");
    expect(all.text).toContain("Internet kiran.magar · active");
    expect(all.text).toMatch(/IPTV kiran\.iptv · inactive\n• .+ – until .+, expired 20 days ago/);
    const none = await expectReply(agent, () => agent.sendText("/lookup 1000007"), "Anil");
    expect(none.text).toContain("No connections.");
    await expectReply(agent, () => agent.sendText("/lookup 9800000000"), "No customer found");
    await expectReply(agent, () => agent.sendText("/lookup"), "Send /lookup followed by");
  });

  it("/txn and /recent find a top-up made through the bot; Refresh edits the card in place", async () => {
    const card = await expectReply(agent, () => agent.sendText("/lookup 9841000001"), "Ram Thapa");
    expect(card.text).toMatch(/• Gold – until .+, expires in 2 days/);

    const payer = stack.emulator.user({ id: 5101, first_name: "Pay", language_code: "en" });
    await expectReply(payer, () => payer.sendText("/topup 1000001"), "Choose a package");
    await expectReply(payer, () => payer.press(/Renew/), "Please confirm");
    await expectReply(payer, () => payer.press(/Confirm/), "Top-up successful");
    const topup = stack.sandbox.topups.find((t) => t.reqId === "8000000011");
    if (!topup?.udf1) throw new Error("the top-up was not made with a reference");
    const reference = topup.udf1;

    // Refresh: the same message now shows the renewed subscription.
    const messagesBefore = botMessages(SUPPORT).length;
    const answered = agent.waitForCallbackAnswer();
    const refreshed = await expectReply(
      agent,
      () => agent.press("🔄 Refresh", { messageId: card.message_id }),
      /• Gold – until .+, expires in \d{2} days/,
    );
    expect((await answered).text).toBe("Refreshing…");
    expect(refreshed.message_id).toBe(card.message_id);
    expect(botMessages(SUPPORT)).toHaveLength(messagesBefore);
    expect(buttonsOf(agent, refreshed)).toEqual(["🔄 Refresh"]);

    const byCheckout = await expectReply(
      agent,
      () => agent.sendText(`/txn ${topup.orderId}`),
      "Transaction ID",
    );
    for (const expected of [
      `Transaction ID: ${topup.txnId}`,
      `Order ID: ${topup.orderId}`,
      "Customer ID: 1000001",
      "Connection: TV 8000000011",
      "Package: Gold · TV-GOLD-M",
      "Provider status: success",
      `Through the bot: ✅ done · reference ${reference}`,
    ]) {
      expect(byCheckout.text).toContain(expected);
    }
    expect(byCheckout.text).toMatch(/Amount: NPR\s?700\.00/);
    // Nobody pays in the bot here (PAYMENT_MODE=none): said plainly.
    expect(byCheckout.text).toContain("Payment: No payment in the bot (agent)");

    const byReference = await expectReply(
      agent,
      () => agent.sendText(`/txn ${reference}`),
      "Transaction ID",
    );
    expect(byReference.text).toContain(`Transaction ID: ${topup.txnId}`);
    expect(byReference.text).toContain("✅ done");
    // The id a customer reads out: the transaction id printed on their receipt.
    const receipt = payer.messages().find((m) => m.text?.includes("Top-up successful"));
    expect(receipt?.text).toContain(`Transaction: ${topup.txnId}`);
    const byTransaction = await expectReply(
      agent,
      () => agent.sendText(`/txn ${topup.txnId}`),
      "Transaction ID",
    );
    expect(byTransaction.text).toContain(`Order ID: ${topup.orderId}`);
    expect(byTransaction.text).toContain(`Through the bot: ✅ done · reference ${reference}`);
    await expectReply(
      agent,
      () => agent.sendText("/txn nosuchcheckout"),
      "No transaction found for nosuchcheckout",
    );

    const recent = await expectReply(agent, () => agent.sendText("/recent"), "Latest top-ups");
    const line = recent.text?.split("\n").find((l) => l.includes(reference)) ?? "";
    expect(line).toMatch(/^✅ done · NPR\s?700\.00 · Gold · TV 8000000011 · customer 1000001 · /);
    expect(line).toMatch(/ · No payment in the bot \(agent\)$/);
    for (const code of ["1000001", "8000000011", "9841000001"]) {
      const mine = await expectReply(agent, () => agent.sendText(`/recent ${code}`), code);
      expect(mine.text).toContain(reference);
    }
    await expectReply(
      agent,
      () => agent.sendText("/recent 1000003"),
      "No top-ups through the bot for 1000003",
    );

    // A top-up that never happened: the journal knows it, the provider does not.
    const unlucky = stack.emulator.user({ id: 5102, first_name: "Un", language_code: "en" });
    await expectReply(unlucky, () => unlucky.sendText("/topup 1000003"), "Choose a package");
    await expectReply(unlucky, () => unlucky.press(/Renew/), "Please confirm");
    stack.sandbox.setFault("subscription-package-topup", { kind: "http-502", times: 1 });
    await expectReply(unlucky, () => unlucky.press(/Confirm/), "Nothing was charged", 8_000);
    const attempt = stack.sandbox.requests
      .filter((r) => r.operation === "subscription-package-topup")
      .at(-1)?.body as { udf1: string };
    const failed = await expectReply(
      agent,
      () => agent.sendText(`/txn ${attempt.udf1}`),
      "Top-up through the bot",
    );
    expect(failed.text).toContain("Top-up through the bot: ↩️ not charged");
    expect(failed.text).toContain("Connection: Internet hari.gurung");
    expect(failed.text).toContain("The provider has no transaction for this top-up.");
    expect(failed.text).toContain("Payment: No payment in the bot (agent)");
    const latest = await expectReply(agent, () => agent.sendText("/recent"), "Latest top-ups");
    expect(latest.text?.split("\n")[1]).toContain(`↩️ not charged`);
    expect(latest.text?.split("\n")[1]).toContain(attempt.udf1);
  });

  it("/recent leaves out what a purchase never paid lacks, in English and Nepali", async () => {
    // A card purchase cancelled before paying: no reference, no checkout, nothing charged.
    const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 1 });
    const ledger = new Kysely<LedgerTables>({ dialect: new PostgresDialect({ pool }) });
    try {
      await insertRows(ledger, [
        paidLedgerRow({
          created_at: new Date(Date.now() + 60_000),
          customer_id: "1000042",
          phase: "unpaid",
          reason: "cancelled",
          reference: null,
        }),
      ]);
    } finally {
      await ledger.destroy();
    }
    const nepali = support.member({ id: NEPALI_AGENT, first_name: "Sahayak", language_code: "ne" });
    for (const [who, title, method, amount] of [
      [agent, "Latest top-ups", "Telegram Payments (card)", /· NPR\s700\.00 ·/],
      [nepali, "पछिल्ला रिचार्जहरू", "Telegram Payments (कार्ड)", /· नेरू\s७००\.०० ·/],
    ] as const) {
      const recent = await expectReply(who, () => who.sendText("/recent"), title);
      const line = recent.text?.split("\n").find((l) => l.includes("1000042")) ?? "";
      // "(Asia/Kathmandu) ·  · Telegram Payments" no more: no part is empty.
      expect(line).not.toMatch(/·\s+·/);
      expect(line.split(" · ").every((part) => part.trim() !== "")).toBe(true);
      expect(line.endsWith(` · ${method}`)).toBe(true);
      // The amount with the currency, in the reader's digits.
      expect(line).toMatch(amount);
    }
  });

  it("audits every lookup in a bounded stream, and keeps codes and names out of the logs", async () => {
    const since = await lastAuditId();
    const started = Date.now();
    const card = await expectReply(agent, () => agent.sendText("/lookup 1000002"), "Sita Sharma");
    const refreshed = agent.waitForCallbackAnswer();
    agent.press("🔄 Refresh", { messageId: card.message_id });
    await refreshed;
    await expectReply(agent, () => agent.sendText("/txn nosuchcheckout"), "No transaction");
    await expectReply(agent, () => agent.sendText("/recent"), "Latest top-ups");
    await expectReply(agent, () => agent.sendText("/recent 1000002"), "1000002");
    // Give the Refresh's own lookup time to finish before reading the logs.
    await waitForLogs((e) => e.msg === "staff action" && e.command === "refresh");

    const records = await auditSince(since);
    expect(records.map(({ command, code }) => ({ command, code }))).toEqual([
      { command: "lookup", code: "1000002" },
      { command: "refresh", code: "1000002" },
      { command: "txn", code: "nosuchcheckout" },
      { command: "recent", code: "" },
      { command: "recent", code: "1000002" },
    ]);
    for (const record of records) {
      expect(record).toMatchObject({ sender: AGENT, group: SUPPORT });
      expect(record.at).toBeGreaterThanOrEqual(started);
      expect(record.at).toBeLessThanOrEqual(Date.now());
    }

    const logged = logEntries().filter((entry) => entry.msg === "staff action");
    expect(logged.length).toBeGreaterThanOrEqual(records.length);
    for (const entry of logged) {
      expect(Object.keys(entry).sort()).toEqual([
        "chatId",
        "command",
        "level",
        "msg",
        "time",
        "userId",
      ]);
    }
    expect(logged.at(-1)).toMatchObject({ userId: AGENT, chatId: SUPPORT, command: "recent" });
    const all = stack.logs().join("\n");
    for (const secret of [
      "1000002",
      "1000008",
      "9841000001",
      "nosuchcheckout",
      "Sita",
      "Sharma",
      "Seán",
      "O'Brien",
      "Ram Thapa",
      "Hari",
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});

describe("the audit stream", () => {
  it("is trimmed to about its maximum length", async () => {
    const keys = redisKeys(`${stack.env.REDIS_KEY_PREFIX}bounded:`);
    const small = new RedisAuditLog(redis, keys, 10);
    for (let i = 0; i < 300; i++) {
      await small.record({ sender: 1, group: SUPPORT, command: "lookup", code: `c${i}`, at: i });
    }
    const length = await redis.xlen(keys.auditLookups);
    // MAXLEN ~ trims whole radix-tree nodes (100 entries by default), never below the maximum.
    expect(length).toBeGreaterThanOrEqual(10);
    expect(length).toBeLessThan(300);
    expect((await small.latest(1))[0]?.code).toBe("c299");
  });
});

describe("outside the support chats", () => {
  it("a group that is not allow-listed gets no reaction at all", async () => {
    const other = stack.emulator.group({ id: OTHER, title: "Friends", type: "supergroup" });
    const member = other.member({ id: 5002, first_name: "Curious", language_code: "en" });
    const requestsBefore = stack.sandbox.requests.length;
    const since = await lastAuditId();
    const commands = ["/lookup 1000002", `/lookup@${botUsername} 1000002`, "/txn abc", "/recent"];
    for (const command of commands) member.sendText(command);
    await waitForLogs(
      (e) => e.msg === "support command outside support chats ignored" && e.chatId === OTHER,
      commands.length,
    );
    await sleep(100);
    expect(botMessages(OTHER)).toEqual([]);
    expect(stack.emulator.calls().filter((c) => Number(c.payload.chat_id) === OTHER)).toEqual([]);
    expect(stack.sandbox.requests.length).toBe(requestsBefore);
    expect(await auditSince(since)).toEqual([]);
  });

  it("a stranger's private chat is only told that the commands are for support staff", async () => {
    const stranger = stack.emulator.user({ id: 5003, first_name: "Nosy", language_code: "en" });
    const requestsBefore = stack.sandbox.requests.length;
    for (const command of ["/lookup 1000002", "/txn abc", "/recent 1000002"]) {
      await expectReply(stranger, () => stranger.sendText(command), "for support staff");
    }
    const said = stranger.messages().map((m: Message) => m.text ?? "");
    expect(said).toHaveLength(3);
    expect(said.join("\n")).not.toMatch(/Sita|Sharma|8000000021/);
    expect(stack.sandbox.requests.length).toBe(requestsBefore);

    const nepali = stack.emulator.user({ id: 5006, first_name: "Jigyasu", language_code: "ne" });
    await expectReply(nepali, () => nepali.sendText("/lookup 1000002"), "सहायता टोलीका लागि");
  });

  it("the bot's joining and leaving groups is logged, with whether the group is allow-listed", async () => {
    const elsewhere = stack.emulator.group({ id: ELSEWHERE, title: "Elsewhere", type: "group" });
    const owner = elsewhere.member({ id: 5004, first_name: "Owner" }, { status: "creator" });
    const membership = (chatId: number, status: string) => (e: Record<string, unknown>) =>
      e.msg === "bot membership in a group changed" && e.chatId === chatId && e.status === status;

    elsewhere.removeBot(owner);
    const [left] = await waitForLogs(membership(ELSEWHERE, "kicked"));
    expect(left).toMatchObject({ allowListed: false, previousStatus: "member" });
    elsewhere.addBot(owner);
    const [joined] = await waitForLogs(membership(ELSEWHERE, "member"));
    expect(joined).toMatchObject({ allowListed: false, previousStatus: "kicked" });
    expect(botMessages(ELSEWHERE)).toEqual([]);

    const desk = stack.emulator.group({ id: SUPPORT_TOO, title: "Night desk", type: "group" });
    const lead = desk.member({ id: 5007, first_name: "Lead" }, { status: "creator" });
    desk.removeBot(lead);
    desk.addBot(lead);
    const [rejoined] = await waitForLogs(membership(SUPPORT_TOO, "member"));
    expect(rejoined).toMatchObject({ allowListed: true });
  });
});
