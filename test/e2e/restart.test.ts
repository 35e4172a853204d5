import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLOW_VERSION } from "../../src/bot/session.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { testRedis } from "../support/redis.js";
import { type Stack, startStack } from "../support/stack.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a restart of the bot", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("restart");
  });
  afterAll(() => stack.stop());

  it("in the middle of browsing: the old message's buttons still work", async () => {
    const user = stack.emulator.user({ id: 6001, first_name: "Re", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000002"), "Which connection");
    await expectReply(user, () => user.press(/••••0021/), "Choose a package");
    const list = await expectReply(user, () => user.press("Add-ons"), /page 1 of \d/);
    await stack.restart();
    const next = await expectReply(user, () => user.press("Next ›"), /page 2 of \d/);
    expect(next.message_id).toBe(list.message_id);
  });

  it("a tap under way when the bot stops is finished first: the chat's next tap is not held up", async () => {
    const user = stack.emulator.user({ id: 6003, first_name: "Un", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000002"), "Which connection");
    await expectReply(user, () => user.press(/••••0021/), "Choose a package");
    await expectReply(user, () => user.press("Add-ons"), /page 1 of \d/);
    // The tap's answer is retried after a second: the update is still being handled when the
    // stop begins. The stop waits for it, so its session is written and its chat freed.
    stack.emulator.failNext("answerCallbackQuery", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
    const second = user.waitForText(/page 2 of \d/, { timeoutMs: 5_000 });
    user.press("Next ›");
    await sleep(300);
    await stack.restart();
    await second;
    // Were the chat still held, this would wait for its lock to lapse (10 s).
    await expectReply(user, () => user.press("Next ›"), /page 3 of \d/, 3_000);
  });

  it("after the idle time: a friendly expiry instead of silence", async () => {
    const idle = await startStack("idle", { SESSION_IDLE_SECONDS: "1" });
    try {
      await expireIdleFlows(idle);
    } finally {
      await idle.stop();
    }
  });

  async function expireIdleFlows(idle: Stack) {
    const user = idle.emulator.user({ id: 6002, first_name: "Id", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    await sleep(1_100);
    await expectReply(user, () => user.sendText("1000001"), "This session has expired");
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await sleep(1_100);
    const expired = user.waitForCallbackAnswer();
    await expectReply(user, () => user.press("Monthly"), "This session has expired");
    expect((await expired).text).toBe("This menu has expired.");
  }

  it("after a deploy changed the flow: the old conversation expires politely", async () => {
    const user = stack.emulator.user({ id: 6003, first_name: "Ve", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    const store = testRedis("restart-peek");
    const key = `${stack.env.REDIS_KEY_PREFIX}session:${user.chatId}`;
    // The session is written when the update's handling ends, just after the reply.
    let session = JSON.parse((await store.redis.get(key)) ?? "{}");
    for (let i = 0; i < 40 && !session.conversation; i++) {
      await sleep(25);
      session = JSON.parse((await store.redis.get(key)) ?? "{}");
    }
    expect(session.conversation?.version?.[1]).toBe(FLOW_VERSION);
    session.conversation.version[1] = 0;
    await store.redis.set(key, JSON.stringify(session));
    store.redis.disconnect();
    await expectReply(user, () => user.sendText("1000001"), "This session has expired");
  });
});

describe("the bot process killed in the middle of a top-up", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("killed");
  });
  afterAll(() => stack.stop());

  // The default lease and reconciliation settings: the receipt time is what operators get.
  const startBot = () => stack.startBot({ PROVIDER_TIMEOUT_MS: "20000" });

  it("tells the user the outcome within 20 s of the restart, without a second top-up", async () => {
    const { sandbox, emulator } = stack;
    const first = startBot();
    const user = emulator.user({ id: 6100, first_name: "Ki", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 15_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 60_000 });
    user.press(/Confirm/);
    for (let i = 0; i < 100 && sandbox.topups.length === 0; i++) await sleep(50);
    expect(sandbox.topups).toHaveLength(1);
    first.child.kill("SIGKILL");
    sandbox.clearFaults();

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 25_000 });
    const restartedAt = Date.now();
    startBot();
    await receipt;
    expect(Date.now() - restartedAt).toBeLessThan(20_000);
    const topupCalls = sandbox.requests.filter((r) => r.operation === "subscription-package-topup");
    expect(topupCalls).toHaveLength(1);
    expect(sandbox.topups).toHaveLength(1);
  }, 40_000);
});
