// A bot started without a way to Telegram (a wrong TELEGRAM_API_ROOT, no network) says so at once
// and keeps trying; a stop while it waits ends it cleanly. Once Telegram answers it says that too
// (test/unit/reachability.test.ts: grammY's retries back off from 3 s, not waited here).
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { freePort } from "../support/ports.js";
import { BOT_TOKEN } from "../support/stack.js";
import { until } from "../support/wait.js";

let stack: ProcessStack;
beforeAll(async () => {
  stack = await startProcessStack("telegram_unreachable");
});
afterAll(() => stack.stop());

it("says at once that Telegram cannot be reached, never with the token, and stops cleanly", async () => {
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const bot = stack.startBot({ LOG_LEVEL: "info", TELEGRAM_API_ROOT: nowhere });
  const said = () => bot.logs().filter((line) => String(line.msg).startsWith("Telegram cannot"));
  await until(() => said().length > 0, 20_000);
  expect(said()[0]).toMatchObject({ level: 40, method: "getMe" });
  expect(JSON.stringify(bot.logs())).not.toContain(BOT_TOKEN);
  expect(bot.logs().some((line) => line.msg === "bot started")).toBe(false);
  bot.child.kill("SIGTERM");
  expect(await bot.exited).toBe(0);
  expect(said()).toHaveLength(1);
}, 30_000);
