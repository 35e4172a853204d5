// Long polling with two instances on one Redis: one polls, the other stands by and takes over
// when the first dies; a 409 from Telegram is a warning, never a crash.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotProcess, type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { BOT_TOKEN } from "../support/stack.js";
import { until } from "../support/wait.js";

const LEASE_SECONDS = 2;

const polls = (bot: BotProcess) =>
  bot.logs().filter((line) => line.msg === "this instance polls Telegram").length;

describe("two polling instances", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("polling");
  });
  afterAll(() => stack.stop());

  it("one polls, the other stands by and takes over when it dies, without flapping", async () => {
    const env = { LOG_LEVEL: "info", POLLING_LEASE_SECONDS: String(LEASE_SECONDS) };
    const first = stack.startBot(env);
    await until(() => polls(first) === 1, 20_000);
    const second = stack.startBot(env);
    await until(() => second.logs().some((line) => line.msg === "bot started"), 20_000);

    const user = stack.emulator.user({ id: 6400, first_name: "Po", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    // Several lease periods: the standby never polls while the first one lives.
    await sleep(LEASE_SECONDS * 2_000);
    expect(polls(second)).toBe(0);
    expect(stack.emulator.calls("getUpdates").filter((c) => !c.response.ok)).toHaveLength(0);

    first.child.kill("SIGKILL");
    const tookOver = await until(() => polls(second) === 1, 15_000);
    expect(tookOver).toBeLessThan(LEASE_SECONDS * 1_000 + 2_500);
    await expectReply(user, () => user.sendText("/topup 1000002"), "Which connection");
    expect(polls(second)).toBe(1);
    // Stopped, it gives its turn back at once.
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 60_000);

  it("a 409 from another poller outside is a warning and a pause, not a crash", async () => {
    const bot = stack.startBot({ LOG_LEVEL: "info", POLLING_LEASE_SECONDS: "2" });
    // The turn was given back: no lease to wait for.
    expect(await until(() => polls(bot) === 1, 20_000)).toBeLessThan(8_000);
    await sleep(300);
    // Somebody else polls with the same token: the bot's pending getUpdates is ended with 409.
    const url = `${stack.emulator.apiRoot}/bot${BOT_TOKEN}/getUpdates?timeout=0&limit=1&offset=-1`;
    await fetch(url);
    const warned = () =>
      bot.logs().some((line) => line.level === 40 && String(line.msg).includes("409"));
    await until(warned, 5_000);
    const user = stack.emulator.user({ id: 6401, first_name: "Co", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 10_000);
    expect(bot.child.exitCode).toBeNull();
  }, 40_000);
});
