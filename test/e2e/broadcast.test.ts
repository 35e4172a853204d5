import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser, TelegramEmulator } from "../../tools/telegram-emulator/index.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { type Stack, startStack } from "../support/stack.js";

// Above every subscriber id, so that the admin (a subscriber too) is the last recipient.
const ADMIN = 99_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const received = (user: ChatUser, text: string) =>
  user.messages().filter((message: Message) => message.text === text).length;

/** Users who each sent /start, so that they are in the subscriber registry. */
async function subscribers(
  emulator: TelegramEmulator,
  from: number,
  count: number,
  language = "en",
) {
  const users = Array.from({ length: count }, (_, i) =>
    emulator.user({ id: from + i, first_name: `Sub${i}`, language_code: language }),
  );
  await Promise.all(
    users.map((user) => {
      const welcome = user.waitForMessage(() => true, { timeoutMs: 20_000 });
      user.sendText("/start");
      return welcome;
    }),
  );
  return users;
}

/** The admin's /broadcast up to the Send button; returns the number of recipients announced. */
async function prepareBroadcast(admin: ChatUser, text: string, audience: string): Promise<number> {
  await expectReply(admin, () => admin.sendText("/broadcast"), "Send the message to broadcast");
  await expectReply(admin, () => admin.sendText(text), "Who should receive it?");
  const confirm = await expectReply(
    admin,
    () => admin.press(audience),
    "exactly as recipients will see it",
  );
  const preview = admin
    .messages()
    .find((m) => m.text === text && m.message_id > 0 && m.from?.is_bot);
  // The preview has no live button: pressing it would stop the admin's own announcements.
  expect(preview?.reply_markup).toBeUndefined();
  expect(confirm.text).toContain("🔕 Stop announcements");
  return Number(/Send it to (\d+) subscribers/.exec(confirm.text ?? "")?.[1]);
}

describe("admin broadcasts", () => {
  let stack: Stack;
  let admin: ChatUser;
  beforeAll(async () => {
    stack = await startStack("broadcast", {
      ADMIN_USER_IDS: String(ADMIN),
      BROADCAST_RATE: "40",
      BROADCAST_PROGRESS_SECONDS: "1",
    });
    admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
  });
  afterAll(() => stack.stop());

  it("reaches 150+ subscribers exactly once through flood control, and marks the blocked", async () => {
    const users = await subscribers(stack.emulator, 8000, 160);
    // Five block the bot before the broadcast (Telegram tells the bot), one stops announcements.
    for (const user of users.slice(150, 155)) user.block();
    await expectReply(
      users[155] as ChatUser,
      () => users[155]?.sendText("/stop"),
      "no more announcements",
    );
    await sleep(200);
    const text = "Big news: new HD channels from Monday!";
    const announced = await prepareBroadcast(admin, text, "Everyone");
    expect(announced).toBe(155); // 160 - 5 blocked - 1 stopped + the admin

    // Three more turn out blocked only when we send; Telegram allows 30 messages a second.
    stack.emulator.failNext(
      "copyMessage",
      { error_code: 403, description: "Forbidden: bot was blocked by the user" },
      3,
    );
    stack.emulator.setFloodLimit({ perSecond: 30 });
    const report = admin.waitForText("Broadcast finished", { timeoutMs: 30_000 });
    admin.press("✅ Send");
    const final = await report;
    stack.emulator.setFloodLimit(undefined);

    expect(final.text).toBe("Broadcast finished: 152 sent, 0 failed, 3 blocked the bot, of 155.");
    const reached = users.filter((user) => received(user, text) === 1);
    expect(reached).toHaveLength(151);
    expect(received(admin, text)).toBe(2); // the preview and the broadcast itself
    expect(users.every((user) => received(user, text) <= 1)).toBe(true);
    for (const user of users.slice(150, 156)) expect(received(user, text)).toBe(0);
    const throttled = stack.emulator
      .calls("copyMessage")
      .filter((call) => !call.response.ok && call.response.error_code === 429);
    expect(throttled.length).toBeGreaterThan(0);
    // The admin's progress message was edited while sending, then gave way to the report.
    const progress = stack.emulator
      .calls("editMessageText")
      .filter((call) => call.payload.chat_id === ADMIN && call.response.ok);
    expect(progress.some((call) => String(call.payload.text).startsWith("Sending…"))).toBe(true);
    expect(admin.messages().some((m) => m.text?.startsWith("Sending…"))).toBe(false);

    // Blocked users are inactive now: a second broadcast leaves them out.
    expect(await prepareBroadcast(admin, "Second", "Everyone")).toBe(152);
    await expectReply(admin, () => admin.press("Cancel"), "Not sent.");
  }, 60_000);

  it("sends plan information in each recipient's language", async () => {
    const nepali = await subscribers(stack.emulator, 8500, 3, "ne");
    await expectReply(admin, () => admin.sendText("/plans 1000001"), "Who should receive it?");
    const confirm = await expectReply(
      admin,
      () => admin.press("Nepali speakers"),
      "exactly as recipients will see it",
    );
    expect(confirm.text).toContain("Send it to 3 subscribers");
    expect(admin.messages().some((m) => m.text?.startsWith("Our TV plans"))).toBe(true);
    const report = admin.waitForText("Broadcast finished", { timeoutMs: 10_000 });
    admin.press("✅ Send");
    expect((await report).text).toContain("3 sent");
    // The progress message gave way to the report: nothing says "Sending…" any more.
    expect(admin.messages().some((m) => m.text?.startsWith("Sending…"))).toBe(false);
    for (const user of nepali) {
      const plans = user.messages().find((m) => m.text?.startsWith("हाम्रा टिभी प्लानहरू"));
      expect(plans?.text).toContain("मासिक");
      expect(plans?.text).toMatch(/Gold – /);
    }
  });

  it("lets a recipient stop announcements with the button under them", async () => {
    const [user] = await subscribers(stack.emulator, 8600, 1);
    if (!user) throw new Error("no user");
    await prepareBroadcast(admin, "Hello 8600", "Everyone");
    const report = admin.waitForText("Broadcast finished", { timeoutMs: 20_000 });
    admin.press("✅ Send");
    await report;
    const answer = user.waitForCallbackAnswer();
    user.press("🔕 Stop announcements");
    expect((await answer).text).toContain("no more announcements");
    expect(await prepareBroadcast(admin, "Hello again", "Everyone")).not.toBeNaN();
    await expectReply(admin, () => admin.press("Cancel"), "Not sent.");
    expect(received(user, "Hello again")).toBe(0);
  }, 30_000);

  it("stops a running broadcast on /broadcast_cancel", async () => {
    const text = "This one gets cancelled";
    const total = await prepareBroadcast(admin, text, "Everyone");
    const report = admin.waitForText("Broadcast cancelled", { timeoutMs: 10_000 });
    admin.press("✅ Send");
    await admin.waitForText(/^Sending… [1-9]/, { timeoutMs: 10_000 });
    await expectReply(admin, () => admin.sendText("/broadcast_cancel"), "Stopping the broadcast");
    const final = (await report).text ?? "";
    const [sent, remaining] = [/(\d+) sent/, /(\d+) not sent/].map((re) =>
      Number(re.exec(final)?.[1]),
    );
    expect(sent).toBeGreaterThan(0);
    expect(remaining).toBeGreaterThan(0);
    expect(final).toContain(`of ${total}`);
    await expectReply(admin, () => admin.sendText("/broadcast_cancel"), "No broadcast is running");
  });

  it("refuses non-admins", async () => {
    const stranger = stack.emulator.user({ id: 7001, first_name: "Eve", language_code: "en" });
    for (const command of ["/broadcast", "/plans 1000001", "/broadcast_cancel"]) {
      await expectReply(stranger, () => stranger.sendText(command), "for administrators only");
    }
    await expectReply(stranger, () => stranger.sendText("hello"), "Send /topup");
  });
});

describe("a broadcast when the bot is killed", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("broadcast-killed");
  });
  afterAll(() => stack.stop());

  const start = () =>
    stack.startBot({
      ADMIN_USER_IDS: String(ADMIN),
      BROADCAST_RATE: "20",
      BROADCAST_LOCK_SECONDS: "2",
      BROADCAST_PROGRESS_SECONDS: "1",
    });

  it("resumes after a restart and nobody gets it twice", async () => {
    const { emulator } = stack;
    const first = start();
    const users = await subscribers(emulator, 9000, 60);
    const admin = emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
    const text = "Maintenance tonight";
    expect(await prepareBroadcast(admin, text, "Everyone")).toBe(61); // with the admin
    admin.press("✅ Send");
    const delivered = () => users.filter((user) => received(user, text) > 0).length;
    for (let i = 0; i < 200 && delivered() < 20; i++) await sleep(20);
    first.child.kill("SIGKILL");
    const atKill = delivered();
    expect(atKill).toBeLessThan(60);

    const report = admin.waitForText("Broadcast finished", { timeoutMs: 30_000 });
    start();
    const final = await report;
    const counts = /(\d+) sent, (\d+) failed, (\d+) blocked/.exec(final.text ?? "");
    const [sent, failed] = [Number(counts?.[1]), Number(counts?.[2])];
    expect(users.every((user) => received(user, text) <= 1)).toBe(true);
    // The one claimed at the moment of the kill counts as failed even if Telegram got it.
    const reached = delivered() + received(admin, text) - 1;
    expect(reached).toBeGreaterThanOrEqual(sent);
    expect(reached).toBeLessThanOrEqual(sent + failed);
    // At most the one recipient claimed at the moment of the kill is lost, never doubled.
    expect(sent + failed).toBe(61);
    expect(failed).toBeLessThanOrEqual(1);
    expect(sent).toBeGreaterThan(atKill);
  }, 60_000);
});

describe("admin broadcasts to small audiences", () => {
  const ADMIN_NE = 99_001;
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("broadcast-small", { ADMIN_USER_IDS: `${ADMIN},${ADMIN_NE}` });
  });
  afterAll(() => stack.stop());

  it("refuses an audience of nobody before the preview, and counts one subscriber as one", async () => {
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
    await subscribers(stack.emulator, 8700, 1, "ne");
    await expectReply(admin, () => admin.sendText("/broadcast"), "Send the message to broadcast");
    await expectReply(admin, () => admin.sendText("Only for IPTV"), "Who should receive it?");
    const before = admin.messages().length;
    await expectReply(
      admin,
      () => admin.press("IPTV customers"),
      "Nobody is in IPTV customers yet",
    );
    // No preview was sent: only the refusal came.
    expect(
      admin
        .messages()
        .slice(before)
        .map((m) => m.text),
    ).toEqual([
      "Nobody is in IPTV customers yet, so there is no one to send it to. Choose another audience, or /cancel.",
    ]);
    const confirm = await expectReply(
      admin,
      () => admin.press("Nepali speakers"),
      "exactly as recipients will see it",
    );
    expect(confirm.text).toContain("Send it to 1 subscriber (Nepali speakers)?");
    await expectReply(admin, () => admin.press("Cancel"), "Not sent.");
  });

  it("/cancel in the admin's flow says it was the broadcast that was cancelled", async () => {
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
    await expectReply(admin, () => admin.sendText("/broadcast"), "Send the message to broadcast");
    await expectReply(
      admin,
      () => admin.sendText("/cancel"),
      "Broadcast cancelled: nothing was sent.",
    );
  });

  it("says the same in Nepali", async () => {
    const admin = stack.emulator.user({ id: ADMIN_NE, first_name: "Admin", language_code: "ne" });
    await expectReply(admin, () => admin.sendText("/broadcast"), /./);
    await expectReply(admin, () => admin.sendText("केवल IPTV"), /./);
    const refusal = await expectReply(
      admin,
      () => admin.press("आईपीटिभी ग्राहकलाई"),
      "अहिलेसम्म कोही छैन",
    );
    expect(refusal.text).toContain("/cancel");
  });
});
