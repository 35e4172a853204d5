// Who may use the staff commands, end to end: a support group's members are not all staff;
// STAFF_USER_IDS (or, without it, the group's administrators) are; only REFUND_USER_IDS and
// admins mark refunds done; anonymous admins and channels are asked to send as themselves.
// Every staff command is in the audit, the refused ones too (ids and the reason only).
import type { Message } from "grammy/types";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisAuditLog } from "../../src/adapters/redis/support-audit.js";
import type { ChatUser, GroupDriver } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { type Stack, startStack } from "../support/stack.js";
import { until } from "../support/wait.js";

const GROUP = -1008801;
const STAFF = 8801;
const REFUNDER = 8802;
const MEMBER = 8803;
const NEPALI_MEMBER = 8804;
const GROUP_ADMIN = 8805;
const CHANNEL = -1008899;

const PAYING = {
  PAYMENT_MODE: "telegram",
  PAYMENT_PROVIDER_TOKEN: "284685063:TEST:e2e",
  CURRENCY: "NPR",
  SUPPORT_CHAT_IDS: String(GROUP),
};

let redis: Redis;
beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
});
afterAll(() => redis.disconnect());

const auditOf = (stack: Stack) =>
  new RedisAuditLog(redis, redisKeys(stack.env.REDIS_KEY_PREFIX as string));

const providerCalls = (stack: Stack) => stack.sandbox.requests.length;

const auditLength = async (stack: Stack) => (await auditOf(stack).latest(1000)).length;

/** The audit records written since it held `before`, oldest first, without their id and time. */
async function auditedSince(stack: Stack, before: number) {
  const records = await auditOf(stack).latest(1000);
  return records
    .slice(0, records.length - before)
    .reverse()
    .map(({ id, at, ...record }) => record);
}

describe("with STAFF_USER_IDS and REFUND_USER_IDS", () => {
  let stack: Stack;
  let group: GroupDriver;
  let staff: ChatUser;
  let refunder: ChatUser;
  let member: ChatUser;

  beforeAll(async () => {
    stack = await startStack("staff_roles", {
      ...PAYING,
      STAFF_USER_IDS: String(STAFF),
      REFUND_USER_IDS: String(REFUNDER),
    });
    group = stack.emulator.group({ id: GROUP, title: "Support desk", type: "supergroup" });
    staff = group.member({ id: STAFF, first_name: "Staff", language_code: "en" });
    refunder = group.member({ id: REFUNDER, first_name: "Refunder", language_code: "en" });
    // A group administrator, but not on the list: the list decides.
    member = group.member(
      { id: MEMBER, first_name: "Member", language_code: "en" },
      { status: "administrator" },
    );
  });
  afterAll(() => stack.stop());

  it("a member who is not staff is refused every staff command, before anything is looked up", async () => {
    const before = providerCalls(stack);
    const audited = await auditLength(stack);
    for (const command of ["/lookup 1000002", "/txn abc", "/recent", "/refunds"]) {
      const refusal = await expectReply(member, () => member.sendText(command), /support staff/);
      expect(refusal.text).toBe(
        "Only support staff may use this command. Ask an admin to add you to the staff.",
      );
    }
    await expectReply(member, () => member.sendText("/refunded p-1"), "Only the people who make");
    expect(providerCalls(stack)).toBe(before);
    // Each refusal is audited: who, where, which command and why; never what was typed.
    const refused = (command: string, refused = "not-staff") => ({
      sender: MEMBER,
      group: GROUP,
      command,
      code: "",
      refused,
    });
    expect(await auditedSince(stack, audited)).toEqual([
      refused("lookup"),
      refused("txn"),
      refused("recent"),
      refused("refunds"),
      refused("refunded", "not-refunder"),
    ]);
    // With a list, Telegram's administrators are not asked.
    expect(stack.emulator.calls("getChatMember")).toEqual([]);
    const said = group.messages().map((m) => m.text ?? "");
    expect(said.join("\n")).not.toMatch(/Sita|Sharma|Refunds due|No refunds/);

    const nepali = group.member({ id: NEPALI_MEMBER, first_name: "Sadasya", language_code: "ne" });
    await expectReply(nepali, () => nepali.sendText("/lookup 1000002"), "सहायता कर्मचारीले मात्र");
  });

  it("staff look up and list refunds, audited under their own id; only refunders mark refunds done", async () => {
    const audited = await auditLength(stack);
    await expectReply(staff, () => staff.sendText("/lookup 1000002"), "Sita Sharma");
    await expectReply(staff, () => staff.sendText("/refunds"), "No refunds are due");
    await expectReply(staff, () => staff.sendText("/refunded p-1"), "Only the people who make");
    await expectReply(refunder, () => refunder.sendText("/refunded p-1"), "No refund is due");
    expect(await auditedSince(stack, audited)).toEqual([
      { sender: STAFF, group: GROUP, command: "lookup", code: "1000002" },
      { sender: STAFF, group: GROUP, command: "refunds", code: "" },
      { sender: STAFF, group: GROUP, command: "refunded", code: "", refused: "not-refunder" },
      { sender: REFUNDER, group: GROUP, command: "refunded", code: "p-1" },
    ]);
  });

  it("a member pressing Refresh on a staff member's card is refused", async () => {
    const card = await expectReply(staff, () => staff.sendText("/lookup 1000003"), "Hari Gurung");
    const before = providerCalls(stack);
    const audited = await auditLength(stack);
    const answered = member.waitForCallbackAnswer();
    member.press("🔄 Refresh", { messageId: card.message_id });
    expect((await answered).text).toContain("Only support staff");
    expect(providerCalls(stack)).toBe(before);
    expect(await auditedSince(stack, audited)).toEqual([
      { sender: MEMBER, group: GROUP, command: "refresh", code: "", refused: "not-staff" },
    ]);
  });

  it("an anonymous admin and a channel are asked to send as themselves, audited by the chat they sent as", async () => {
    const before = providerCalls(stack);
    const audited = await auditLength(stack);
    const anonymous = group.anonymousAdmin();
    const channel = group.asChannel({ id: CHANNEL, title: "Provider news" });
    for (const sender of [anonymous, channel]) {
      for (const command of ["/lookup 1000002", "/refunded p-1"]) {
        const reply = await expectReply(sender, () => sender.sendText(command), /as yourself/);
        expect(reply.text).toBe(
          "Staff commands need to know who sent them: please send it as yourself, not anonymously or as a channel.",
        );
      }
    }
    expect(providerCalls(stack)).toBe(before);
    const refused = (sender: number, command: string) => ({
      sender,
      asChat: true,
      group: GROUP,
      command,
      code: "",
      refused: "anonymous",
    });
    expect(await auditedSince(stack, audited)).toEqual([
      refused(GROUP, "lookup"),
      refused(GROUP, "refunded"),
      refused(CHANNEL, "lookup"),
      refused(CHANNEL, "refunded"),
    ]);
  });
});

describe("without STAFF_USER_IDS: the group's administrators", () => {
  let stack: Stack;
  let group: GroupDriver;

  beforeAll(async () => {
    stack = await startStack("staff_admins", PAYING);
    group = stack.emulator.group({ id: GROUP, title: "Support desk", type: "supergroup" });
  });
  afterAll(() => stack.stop());

  it("an administrator may, a plain member may not; Telegram is asked once per person", async () => {
    const admin = group.member(
      { id: GROUP_ADMIN, first_name: "Lead", language_code: "en" },
      { status: "administrator" },
    );
    const member = group.member({ id: MEMBER, first_name: "Member", language_code: "en" });
    const audited = await auditLength(stack);
    await expectReply(admin, () => admin.sendText("/lookup 1000002"), "Sita Sharma");
    await expectReply(admin, () => admin.sendText("/recent"), /top-ups through the bot/);
    await expectReply(member, () => member.sendText("/lookup 1000002"), "Only support staff");
    await expectReply(member, () => member.sendText("/refunds"), "Only support staff");
    // Administrators are staff, not refunders.
    await expectReply(admin, () => admin.sendText("/refunded p-1"), "Only the people who make");
    const asked = stack.emulator
      .calls("getChatMember")
      .map((call) => Number(call.payload.user_id))
      .sort();
    expect(asked).toEqual([MEMBER, GROUP_ADMIN]);
    expect(await auditedSince(stack, audited)).toEqual([
      { sender: GROUP_ADMIN, group: GROUP, command: "lookup", code: "1000002" },
      { sender: GROUP_ADMIN, group: GROUP, command: "recent", code: "" },
      { sender: MEMBER, group: GROUP, command: "lookup", code: "", refused: "not-staff" },
      { sender: MEMBER, group: GROUP, command: "refunds", code: "", refused: "not-staff" },
      { sender: GROUP_ADMIN, group: GROUP, command: "refunded", code: "", refused: "not-refunder" },
    ]);
  });
});

describe("a staff command that is not the sender's own message", () => {
  const ADMIN = 8810;
  /** An admin the bot has never heard from when it starts. */
  const LATE_ADMIN = 8814;
  const STRANGER = 8811;
  const INLINE_BOT = {
    id: 8812,
    is_bot: true,
    first_name: "Inline",
    username: "inline_helper_bot",
  };
  let stack: Stack;
  let group: GroupDriver;
  let admin: ChatUser;
  let staff: ChatUser;
  let pool: pg.Pool;
  const deposits = async () =>
    (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM provider_balance_entries"))
      .rows[0]?.n;

  beforeAll(async () => {
    stack = await startStack("staff_own", {
      ...PAYING,
      ADMIN_USER_IDS: `${ADMIN},${LATE_ADMIN}`,
      STAFF_USER_IDS: String(STAFF),
    });
    group = stack.emulator.group({ id: GROUP, title: "Support desk", type: "supergroup" });
    staff = group.member({ id: STAFF, first_name: "Staff", language_code: "ne" });
    admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
    pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 1 });
  });
  afterAll(async () => {
    await pool.end();
    await stack.stop();
  });

  it("an admin Telegram did not know at start gets /report and /balance in their menu at their first message", async () => {
    // At start this admin had never written to the bot: Telegram refused their own menu.
    await until(
      () => stack.logs().some((line) => line.includes("could not set the command menus")),
      5_000,
    );
    const late = stack.emulator.user({ id: LATE_ADMIN, first_name: "Late", language_code: "en" });
    const names = () => late.commands().map((c) => c.command);
    expect(names()).not.toContain("report");
    await expectReply(late, () => late.sendText("/start"), "Welcome");
    expect(names()).toEqual(expect.arrayContaining(["topup", "report", "balance", "broadcast"]));
    const described = (command: string) =>
      late.commands().find((c) => c.command === command)?.description;
    expect(described("balance")).toBe("Provider balance: expected, deposits, readings");
    expect(described("report")).toBe("Finance report: sales, outcomes, CSV");
    // In Nepali too, for an admin whose Telegram is in Nepali.
    stack.emulator.user({ id: LATE_ADMIN, first_name: "Late", language_code: "ne" });
    expect(described("balance")).toBe("प्रदायक ब्यालेन्स: अपेक्षित, जम्मा, रिडिङ");
    expect(described("report")).toBe("वित्तीय रिपोर्ट: बिक्री, नतिजा, CSV");
    // Never in a subscriber's menu.
    const subscriber = stack.emulator.user({ id: 8813, first_name: "Sub", language_code: "en" });
    expect(subscriber.commands().map((c) => c.command)).not.toContain("report");
  });

  it("forwarded by an admin: not run, nothing recorded, the admin told why", async () => {
    const stranger = stack.emulator.user({ id: STRANGER, first_name: "Nosy", language_code: "en" });
    let theirs: Message | undefined;
    await expectReply(
      stranger,
      () => {
        theirs = stranger.sendText("/balance add 999999");
      },
      "administrators only",
    );
    const refusal = await expectReply(
      admin,
      () => admin.forward(theirs as Message),
      "Nothing was done",
    );
    expect(refusal.text).toBe(
      "Nothing was done: staff commands are taken only from your own messages, never from a forwarded message or one sent through an inline bot. Type the command yourself if you mean it.",
    );
    // Sent through an inline bot: the same.
    await expectReply(
      admin,
      () => admin.sendText("/balance add 999999", { viaBot: INLINE_BOT }),
      "Nothing was done",
    );
    // Forwarded from the admin's own earlier message: still not run.
    let own: Message | undefined;
    await expectReply(
      admin,
      () => {
        own = admin.sendText("/balance");
      },
      "Expected balance",
    );
    await expectReply(admin, () => admin.forward(own as Message), "Nothing was done");
    expect(await deposits()).toBe(0);
    // Typed by the admin, the same command is run.
    await expectReply(admin, () => admin.sendText("/balance add 5"), "Deposit of");
    expect(await deposits()).toBe(1);
    const refused = stack
      .logs()
      .filter((line) => line.includes("staff command refused") && line.includes("not-own-message"));
    expect(refused).toHaveLength(3);
    expect(refused.join("\n")).not.toContain("999999");
  });

  it("in the support group: not run, audited as refused, the staff member told in their language", async () => {
    const member = group.member({ id: MEMBER, first_name: "Member", language_code: "en" });
    const before = providerCalls(stack);
    const audited = await auditLength(stack);
    let asked: Message | undefined;
    await expectReply(
      member,
      () => {
        asked = member.sendText("/lookup 1000002");
      },
      "Only support staff",
    );
    await expectReply(staff, () => staff.forward(asked as Message), "केही गरिएन");
    await expectReply(
      staff,
      () => staff.sendText("/refunded p-1", { viaBot: INLINE_BOT }),
      "केही गरिएन",
    );
    expect(providerCalls(stack)).toBe(before);
    expect(await auditedSince(stack, audited)).toEqual([
      { sender: MEMBER, group: GROUP, command: "lookup", code: "", refused: "not-staff" },
      { sender: STAFF, group: GROUP, command: "lookup", code: "", refused: "not-own-message" },
      { sender: STAFF, group: GROUP, command: "refunded", code: "", refused: "not-own-message" },
    ]);
    // Typed by the staff member, it is looked up.
    await expectReply(staff, () => staff.sendText("/lookup 1000002"), "Sita Sharma");
  });
});
