// Graceful shutdown of real bot processes: however the bot was started and however many
// signals arrive, readiness turns 503 at once, the purchase under way finishes and its receipt
// is sent, and the process exits 0 within SHUTDOWN_GRACE_SECONDS.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { type BotProcess, type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { freePort } from "../support/ports.js";
import { type OwnRedis, startOwnRedis } from "../support/redis-server.js";
import { alive, httpStatus, until } from "../support/wait.js";

const status = (port: number, path: string) => httpStatus(`http://127.0.0.1:${port}${path}`);

/** Sends every signal, in order, a little apart. */
function signal(bot: BotProcess, signals: NodeJS.Signals[], group: boolean): void {
  const pid = bot.child.pid as number;
  signals.forEach((name, index) => {
    setTimeout(() => {
      try {
        process.kill(group ? -pid : pid, name);
      } catch {
        // Already gone.
      }
    }, index * 150);
  });
}

describe("graceful shutdown", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("shutdown");
  });
  afterAll(() => stack.stop());

  let nextUser = 6300;
  async function atConfirm(): Promise<ChatUser> {
    const user = stack.emulator.user({ id: nextUser++, first_name: "Sd", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 20_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    return user;
  }

  async function startReady(env: Record<string, string>, npm?: "start" | "dev") {
    const port = await freePort();
    const bot = stack.startBot(
      { HTTP_PORT: String(port), HTTP_HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
      { npm },
    );
    await until(async () => (await status(port, "/readyz")) === 200, 20_000);
    return { bot, port };
  }

  it.each([
    {
      how: "node: SIGTERM, SIGTERM again, then SIGINT",
      signals: ["SIGTERM", "SIGTERM", "SIGINT"] as NodeJS.Signals[],
      group: false,
    },
    // A container whose first process is npm, a supervisor that signals what it started.
    { how: "npm start: one SIGTERM to npm alone", npm: "start" as const, group: false },
    { how: "npm run dev: one SIGTERM to npm alone", npm: "dev" as const, group: false },
    // A terminal's Ctrl-C, a supervisor that signals the group: npm and node each get it.
    { how: "npm start: SIGTERM to the process group", npm: "start" as const, group: true },
  ])(
    "$how: ready turns 503 at once, the receipt is sent, exit 0",
    async ({ npm, group, signals = ["SIGTERM"] }) => {
      const { sandbox } = stack;
      const { bot, port } = await startReady({ SHUTDOWN_GRACE_SECONDS: "10" }, npm);
      const user = await atConfirm();
      const before = sandbox.topups.length;
      sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 1_500 });
      user.press(/Confirm/);
      await until(async () => sandbox.topups.length > before, 5_000);
      const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
      const signalledAt = Date.now();
      signal(bot, signals, group);
      await sleep(100);
      expect(await status(port, "/readyz")).toBe(503);
      expect(await status(port, "/healthz")).toBe(200);
      await receipt;
      // npm waits for the bot and exits with its code.
      expect(await bot.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
      const pid = bot.logs().find((line) => line.msg === "bot started")?.pid as number;
      expect(alive(pid)).toBe(false);
      expect(sandbox.topups.length).toBe(before + 1);
      sandbox.clearFaults();
      const logs = bot.logs().map((line) => line.msg);
      expect(logs.filter((msg) => msg === "stopping")).toHaveLength(1);
      if (signals.length > 1) expect(logs).toContain("already stopping");
      expect(logs.at(-1)).toBe("bot stopped");
    },
    60_000,
  );

  it("hands a purchase the provider still holds over before the grace runs out", async () => {
    const { sandbox } = stack;
    const { bot } = await startReady({ SHUTDOWN_GRACE_SECONDS: "6" });
    const user = await atConfirm();
    const before = sandbox.topups.length;
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 60_000 });
    user.press(/Confirm/);
    await until(async () => sandbox.topups.length > before, 5_000);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const signalledAt = Date.now();
    signal(bot, ["SIGTERM"], false);
    // The top-up was made: the hand-over's txn-status finds it, and the buyer is told.
    await receipt;
    expect(await bot.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(6_000);
    expect(sandbox.topups.length).toBe(before + 1);
    sandbox.clearFaults();
  }, 40_000);
});

describe("readiness follows Redis", () => {
  let redis: OwnRedis;
  let stack: ProcessStack;
  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startProcessStack("readyz", { redisUrl: redis.url });
  });
  afterAll(async () => {
    await stack.stop();
    await redis.stop();
  });

  it("is 503 while the test's own Redis is stopped, 200 again when it is back", async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    stack.startBot({
      HTTP_PORT: String(port),
      HTTP_HOST: "127.0.0.1",
      METRICS_PORT: String(metricsPort),
    });
    await until(async () => (await status(port, "/readyz")) === 200, 20_000);
    await redis.kill();
    await until(async () => (await status(port, "/readyz")) === 503, 5_000);
    expect(await status(port, "/healthz")).toBe(200);
    await redis.start();
    await until(async () => (await status(port, "/readyz")) === 200, 10_000);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/bot_redis_errors_total [1-9]/);
    expect(metrics).toContain("bot_redis_up 1");
  }, 40_000);
});
