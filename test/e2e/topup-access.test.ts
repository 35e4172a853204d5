// PAYMENT_MODE=none: nobody pays in the bot, so only TOPUP_USER_IDS may top up. Anyone else is
// told so at every way in, and no customer is looked up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectReply } from "../support/chat.js";
import { type Stack, startStack } from "../support/stack.js";

const AGENT = 7301;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack("topup_access", { TOPUP_USER_IDS: `${AGENT}, 7399` });
});
afterAll(() => stack.stop());

describe("top-ups for registered agents only", () => {
  it("lets a listed agent top up", async () => {
    const agent = stack.emulator.user({ id: AGENT, first_name: "Ag", language_code: "en" });
    await expectReply(agent, () => agent.sendText("/topup 1000001"), "Choose a package");
    await expectReply(agent, () => agent.press(/Renew/), "Please confirm");
    await expectReply(agent, () => agent.press(/Confirm/), "Top-up successful");
  });

  it("tells anyone else, in their language, at every way in, and looks nobody up", async () => {
    const lookups = () =>
      stack.sandbox.requests.filter((r) => r.operation === "get-customer-information").length;
    const before = lookups();
    const user = stack.emulator.user({ id: 7302, first_name: "Us", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "registered agents");
    await expectReply(user, () => user.sendText("/topup"), "registered agents");
    // The Top up button of /start.
    const welcome = await expectReply(user, () => user.sendText("/start"), "Welcome");
    const answer = user.waitForCallbackAnswer();
    user.press(/Top up/, { messageId: welcome.message_id });
    expect((await answer).text).toContain("registered agents");
    const nepali = stack.emulator.user({ id: 7303, first_name: "Ne", language_code: "ne" });
    await expectReply(nepali, () => nepali.sendText("/topup 1000001"), "एजेन्ट");
    // The rest of the bot still answers them.
    await expectReply(user, () => user.sendText("/history"), /.+/);
    expect(lookups()).toBe(before);
  });
});
