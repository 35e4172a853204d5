// Expiry reminders through real bot processes: opted in beside a subscription that ends a few
// seconds after the reminder's offset, a restart in between, two instances sending (once), and
// a Renew tap that ends in exactly one top-up. Nepali text too.
import { DateTime } from "luxon";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import { startStack } from "../support/stack.js";

type Listing = { tv: { subscriptions: Record<string, unknown>[] } };

let stack: ProcessStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Gold, on customer 1000001's TV, ends one day and `seconds` from now (provider in UTC). */
function goldEndsIn(processes: ProcessStack, seconds: number): void {
  const end = DateTime.utc().plus({ days: 1, seconds }).toFormat("yyyy-MM-dd HH:mm:ss");
  processes.sandbox.setFault("get-subscription-package", {
    kind: "transform",
    transform: (response) => {
      const [gold] = (response.body as Listing).tv.subscriptions;
      if (gold) gold.enddate = end;
      return response;
    },
  });
}

const reminded = (user: ChatUser, text: string) =>
  user.messages().filter((m) => m.text?.includes(text) && m.text.startsWith("🔔"));

describe("expiry reminders", () => {
  it("fire once at the offset after a restart, with two instances, and Renew pays once", async () => {
    stack = await startProcessStack("reminders");
    const env = { REMINDER_DAYS_BEFORE: "1,3", ADMIN_USER_IDS: "77009" };
    const first = stack.startBot(env);
    const user = stack.emulator.user({ id: 77_001, first_name: "Re", language_code: "en" });
    // The bot answers first: its start, slow under load, must not eat the seconds below.
    await expectReply(user, () => user.sendText("/start"), "Welcome", 15_000);
    goldEndsIn(stack, 4);
    // The customer's own contact: a typed code offers no reminder (its dates are hidden).
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    await expectReply(
      user,
      () => user.sendContact({ phone_number: "9841000001" }),
      "Choose a package",
    );
    const answer = user.waitForCallbackAnswer();
    user.press("🔔 Remind me: Gold");
    // Three days before is past already: one reminder, a day before the end.
    expect((await answer).text).toMatch(/^🔔 We will remind you on [^,]+, \d\d:\d\d \(UTC\)\.$/);

    first.child.kill("SIGTERM");
    await first.exited;
    stack.startBot(env);
    stack.startBot(env);
    const reminder = await user.waitForText("ends on", { timeoutMs: 15_000 });
    expect(reminder.text).toContain("Gold");
    expect(buttonsOf(user, reminder)).toEqual(["🔁 Renew Gold"]);
    // Both instances were due to send it; it came once.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(reminded(user, "Gold")).toHaveLength(1);

    const confirm = await expectReply(user, () => user.press("🔁 Renew Gold"), "Please confirm");
    expect(confirm.text).toContain("Package: Gold");
    const before = stack.sandbox.topups.length;
    await expectReply(user, () => user.press(/Confirm and pay/), "Top-up successful", 15_000);
    expect(stack.sandbox.topups.length).toBe(before + 1);

    // The admins see both counts, whichever instance sent and sold.
    const admin = stack.emulator.user({ id: 77_009, first_name: "Ad", language_code: "en" });
    // The renewal is counted just after its receipt went out: ask until it shows.
    let stats = "";
    for (let i = 0; i < 20 && !stats.endsWith("button: 1."); i++) {
      const reply = await expectReply(admin, () => admin.sendText("/reminder_stats"), "sent");
      stats = reply.text ?? "";
    }
    expect(stats).toBe("Expiry reminders sent: 1. Top-ups made from a reminder’s Renew button: 1.");
  }, 60_000);

  it("is not sent when the subscription was renewed meanwhile; /reminders lists and cancels", async () => {
    stack = await startProcessStack("reminders-renewed");
    stack.startBot({ REMINDER_DAYS_BEFORE: "1" });
    const user = stack.emulator.user({ id: 77_002, first_name: "Ne", language_code: "ne" });
    await expectReply(user, () => user.sendText("/start"), /./, 15_000);
    goldEndsIn(stack, 3);
    // The customer's own contact: a typed code offers no reminder (its dates are hidden).
    await expectReply(user, () => user.sendText("/topup"), /./);
    await expectReply(user, () => user.sendContact({ phone_number: "9841000001" }), "किन्ने प्याकेज");
    const answer = user.waitForCallbackAnswer();
    user.press("🔔 सम्झाउनुहोस्: Gold");
    expect((await answer).text).toContain("सम्झाउनेछौं");
    const list = await expectReply(user, () => user.sendText("/reminders"), "तपाईंका रिमाइन्डरहरू");
    expect(list.text).toContain("Gold");
    // Renewed elsewhere: the provider now lists a later end.
    goldEndsIn(stack, 3 + 30 * 86_400);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(reminded(user, "Gold")).toHaveLength(0);
    const empty = await expectReply(user, () => user.sendText("/reminders"), /./);
    expect(empty.text).toContain("कुनै रिमाइन्डर छैन");
  }, 30_000);
});

describe("reminders in one process", () => {
  it("a receipt offers one; /reminders cancels them", async () => {
    const own = await startStack("reminders-receipt");
    try {
      const user = own.emulator.user({ id: 77_003, first_name: "Rc", language_code: "en" });
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
      await expectReply(user, () => user.press(/Renew/), "Please confirm");
      const receipt = await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      expect(buttonsOf(user, receipt)).toContain("🔔 Remind me before it ends");
      const answer = user.waitForCallbackAnswer();
      user.press("🔔 Remind me before it ends");
      // The renewed end is a month away: both default offsets (3 and 1 days) are to come.
      expect((await answer).text).toMatch(/^🔔 We will remind you on .+, .+\.$/);
      // A second tap on the same button adds none: one reminder per offset.
      const again = user.waitForCallbackAnswer();
      user.press("🔔 Remind me before it ends");
      expect((await again).text).toMatch(/^🔔 We will remind you on .+, .+\.$/);
      const list = await expectReply(user, () => user.sendText("/reminders"), "Your reminders:");
      expect(list.text?.split("\n").filter((line) => line.startsWith("• Gold"))).toHaveLength(2);
      const one = buttonsOf(user, list).find((label) => label.startsWith("✖ Gold")) as string;
      const fewer = await expectReply(user, () => user.press(one), "Your reminders:");
      expect(fewer.text?.split("\n").filter((line) => line.startsWith("• Gold"))).toHaveLength(1);
      await expectReply(user, () => user.press("✖ Cancel all"), "You have no reminders");
    } finally {
      await own.stop();
    }
  });

  it("adds none beyond REMINDERS_PER_USER, and says so", async () => {
    const own = await startStack("reminders-cap", { REMINDERS_PER_USER: "1" });
    try {
      const user = own.emulator.user({ id: 77_004, first_name: "Cp", language_code: "en" });
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
      await expectReply(user, () => user.press(/Renew/), "Please confirm");
      await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      const answer = user.waitForCallbackAnswer();
      // Two offsets (3 and 1 days) would be two reminders: over the cap of one.
      user.press("🔔 Remind me before it ends");
      expect((await answer).text).toBe(
        "You can have at most 1 reminders waiting. Cancel some with /reminders first.",
      );
      await expectReply(user, () => user.sendText("/reminders"), "You have no reminders");
    } finally {
      await own.stop();
    }
  });
});
