// Who may use the staff commands, end to end: a support group's members are not all staff;
// STAFF_USER_IDS (or, without it, the group's administrators) are; only REFUND_USER_IDS and
// admins mark refunds done; anonymous admins and channels are asked to send as themselves.
// Every staff command is in the audit, the refused ones too (ids and the reason only).
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisAuditLog } from "../../src/adapters/redis/support-audit.js";
import type { ChatUser, GroupDriver } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { type Stack, startStack } from "../support/stack.js";

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
