// Anybody can type codes into the bot: customer lookups are limited per user (admins are
// not), a code that is not found costs two, and one user's flood never slows the others down.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectReply } from "../support/chat.js";
import { type Stack, startStack } from "../support/stack.js";

const ADMIN = 6702;

describe("abuse limits", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("abuse", {
      LOOKUP_LIMIT: "4",
      LOOKUP_LIMIT_MINUTES: "10",
      FLOOD_LIMIT: "5",
      ADMIN_USER_IDS: String(ADMIN),
      PROVIDER_TIMEZONE: "Asia/Kathmandu",
    });
  });
  afterAll(() => stack.stop());

  it("two codes not found use up a limit of four: the third lookup is refused with the time to try again", async () => {
    const user = stack.emulator.user({ id: 6701, first_name: "Ab", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 9999991"), "No customer found");
    await expectReply(user, () => user.sendText("9999992"), "No customer found");
    const before = stack.sandbox.requests.length;
    const refused = await expectReply(user, () => user.sendText("1000001"), "Too many attempts");
    const until = new Date(Date.now() + 10 * 60_000);
    const clock = new Intl.DateTimeFormat("en-GB", {
      timeStyle: "short",
      timeZone: "Asia/Kathmandu",
    });
    const expected = [clock.format(until), clock.format(until.getTime() - 60_000)];
    expect(expected.some((time) => refused.text?.includes(`try again at ${time}`))).toBe(true);
    // The refused lookup never reached the provider.
    expect(stack.sandbox.requests.length).toBe(before);
  });

  it("a code that is found costs one: four lookups of four", async () => {
    const user = stack.emulator.user({ id: 6705, first_name: "Fi", language_code: "en" });
    for (let i = 0; i < 4; i++) {
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    }
    await expectReply(user, () => user.sendText("/topup 1000001"), "Too many attempts");
  });

  it("admins are not limited", async () => {
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    await expectReply(admin, () => admin.sendText("/topup 9999991"), "No customer found");
    await expectReply(admin, () => admin.sendText("9999992"), "No customer found");
    await expectReply(admin, () => admin.sendText("1000001"), "Choose a package");
  });

  it("a flood from one user is cut at FLOOD_LIMIT, and another user is answered meanwhile", async () => {
    const flooder = stack.emulator.user({ id: 6703, first_name: "Fl", language_code: "en" });
    for (let i = 0; i < 40; i++) flooder.sendText("/start");
    const other = stack.emulator.user({ id: 6704, first_name: "Ot", language_code: "en" });
    const started = Date.now();
    await expectReply(other, () => other.sendText("/start"), /./);
    expect(Date.now() - started).toBeLessThan(2_000);
    await sleep(1_000);
    const answers = stack.emulator.messages(flooder.chatId).filter((m) => m.sentByBot);
    expect(answers.length).toBeLessThanOrEqual(5);
    expect(answers.length).toBeGreaterThan(0);
  });
});
