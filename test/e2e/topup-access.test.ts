// PAYMENT_MODE=none: nobody pays in the bot, so only TOPUP_USER_IDS may top up. Anyone else is
// told so at every way in (a shared contact, the Mini App's API too), and no customer is looked up.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectReply } from "../support/chat.js";
import { appApi, initDataOf } from "../support/mini-app.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { type Stack, startShopStack } from "../support/stack.js";

const AGENT = 7301;
let stack: Stack;
let base: string;
let redis: Redis;

beforeAll(async () => {
  ({ stack, base } = await startShopStack("topup_access", { TOPUP_USER_IDS: `${AGENT}, 7399` }));
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(async () => {
  redis.disconnect();
  await stack.stop();
});

const lookups = () =>
  stack.sandbox.requests.filter((r) => r.operation === "get-customer-information").length;

/** A call to the Mini App's API as the page makes it for this user. */
const api = (user: number, path: string, body?: Record<string, unknown>) =>
  appApi(base, path, initDataOf(user), body);

describe("top-ups for registered agents only", () => {
  it("lets a listed agent top up", async () => {
    const agent = stack.emulator.user({ id: AGENT, first_name: "Ag", language_code: "en" });
    await expectReply(agent, () => agent.sendText("/topup 1000001"), "Choose a package");
    await expectReply(agent, () => agent.press(/Renew/), "Please confirm");
    await expectReply(agent, () => agent.press(/Confirm/), "Top-up successful");
  });

  it("tells anyone else, in their language, at every way in, and looks nobody up", async () => {
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

  // Review of #40's shared number, finding 1.
  it("tells them so for their own contact too (the attachment menu's, the shop's request), and keeps no number", async () => {
    const before = lookups();
    const user = stack.emulator.user({
      id: 7304,
      first_name: "Us",
      language_code: "en",
      phone_number: "9851000002",
    });
    await expectReply(user, () => user.sendContact(), "registered agents");
    expect(lookups()).toBe(before);
    expect(await redis.get(`${stack.env.REDIS_KEY_PREFIX}shared-phone:${user.id}`)).toBeNull();
    expect((await api(user.id, "connections")).body).toMatchObject({
      contact: "topup-agents-only",
      connections: [],
    });
    expect(lookups()).toBe(before);
  });

  // Review of #40's shared number, finding 1: the Mini App's API applies the chat's rule.
  it("answers the Mini App's lookups and catalogues as the chat does: for agents only", async () => {
    const before = lookups();
    const user = 7305;
    const refused = await api(user, "lookup", { code: "1000001" });
    expect([refused.status, refused.body]).toEqual([403, { error: "topup-agents-only" }]);
    expect((await api(user, "catalogue", { ref: "found-0" })).body.error).toBe("topup-agents-only");
    expect((await api(user, "purchases", { journey: "x", bouquet: 0 })).body.error).toBe(
      "topup-agents-only",
    );
    // What is only theirs is still theirs to see.
    expect((await api(user, "purchases")).status).toBe(200);
    expect(lookups()).toBe(before);
    // An agent looks customers up in the app as in the chat.
    const found = await api(AGENT, "lookup", { code: "1000001" });
    expect(found.status).toBe(200);
    expect(lookups()).toBe(before + 1);
    expect((await api(AGENT, "catalogue", { ref: "found-0" })).status).toBe(200);
  });
});
