// Redis failing under a running bot process: a Redis of the test's own is killed, paused and
// restarted (the shared one is never touched); and stores that cannot be reached at a URL with
// a password.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type BotProcess, type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { toldPurchasesOf } from "../support/ledger-rows.js";
import { freePort } from "../support/ports.js";
import { answers, type OwnRedis, startOwnRedis } from "../support/redis-server.js";

const logged = (bot: BotProcess, msg: string) => bot.logs().filter((line) => line.msg === msg);

/** Waits until the bot has logged `msg` `count` times. */
async function untilLogged(bot: BotProcess, msg: string, count = 1, timeoutMs = 10_000) {
  for (let waited = 0; logged(bot, msg).length < count; waited += 50) {
    if (waited > timeoutMs) {
      const last = bot
        .logs()
        .slice(-8)
        .map((line) => JSON.stringify(line).slice(0, 300));
      throw new Error(`the bot did not log "${msg}" ${count} times; last:\n${last.join("\n")}`);
    }
    await sleep(50);
  }
}

describe("Redis failing under a running bot", () => {
  let redis: OwnRedis;
  let stack: ProcessStack;
  let bot: BotProcess;
  let nextUser = 7100;

  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startProcessStack("redis-failures", { redisUrl: redis.url });
    bot = stack.startBot({ LOG_LEVEL: "info", REDIS_COMMAND_TIMEOUT_MS: "500" });
    await untilLogged(bot, "bot started");
  }, 20_000);
  afterEach(async () => {
    redis.resume();
    stack.sandbox.reset();
    if (!(await answers(redis.url))) await redis.start();
  });
  afterAll(async () => {
    await stack.stop();
    await redis.stop();
  });

  it("answers every tap and message within 5 s in the user's language, and recovers by itself", async () => {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Ra", language_code: "en" });
    const nepali = stack.emulator.user({ id: ++nextUser, first_name: "Ne", language_code: "ne" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await redis.kill();

    let started = Date.now();
    const answer = user.waitForCallbackAnswer({ timeoutMs: 5_000 });
    user.press("Monthly");
    expect((await answer).text).toContain("temporarily unavailable");
    expect(Date.now() - started).toBeLessThan(5_000);

    started = Date.now();
    await expectReply(nepali, () => nepali.sendText("/start"), "अस्थायी", 5_000);
    await expectReply(user, () => user.sendText("1000001"), "Nothing was charged", 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Long enough for several reconnection attempts: still one line in the log.
    await sleep(2_500);

    await redis.start();
    await untilLogged(bot, "Redis is reachable", 2);
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 5_000);

    expect(logged(bot, "Redis is unreachable")).toHaveLength(1);
    expect(logged(bot, "Redis is unreachable")[0]?.level).toBe(50);
    const text = bot.logs().map((line) => JSON.stringify(line));
    expect(text.filter((line) => line.includes("\\n    at "))).toEqual([]);
  }, 30_000);

  it("answers within 5 s while Redis is paused, and goes on when it answers again", async () => {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Pa", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    redis.pause();
    const started = Date.now();
    const answer = user.waitForCallbackAnswer({ timeoutMs: 5_000 });
    user.press("Monthly");
    expect((await answer).text).toContain("temporarily unavailable");
    expect(Date.now() - started).toBeLessThan(5_000);
    redis.resume();
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 5_000);
  }, 20_000);

  it("a top-up answered while Redis fails: the receipt is sent and the ledger has it all", async () => {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Ch", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    stack.sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 1_000 });
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    user.press(/Confirm/);
    // The purchase is recorded as requested and sent; then Redis stops answering.
    for (let i = 0; i < 100 && stack.sandbox.requests.length < 3; i++) await sleep(20);
    await sleep(200);
    redis.pause();
    await receipt;
    expect(stack.sandbox.topups).toHaveLength(1);
    const told = user.messages().map((message) => message.text ?? "");
    expect(told.some((text) => /not confirmed|Checking it|still/i.test(text))).toBe(false);
    // Money is not kept in Redis: the ledger took every phase while Redis was away.
    const rows = await toldPurchasesOf(stack.databaseUrl, user.chatId);
    expect(rows.map(({ phase, told }) => ({ phase, told }))).toEqual([
      { phase: "charged", told: "charged" },
    ]);
    expect(logged(bot, "purchase outcome kept in memory until the store is back")).toEqual([]);
    redis.resume();
  }, 30_000);
});

describe("Redis durability at start", () => {
  let stack: ProcessStack;
  const servers: OwnRedis[] = [];
  afterAll(async () => {
    await stack.stop();
    for (const server of servers) await server.stop();
  });

  it("warns when Redis could lose reminders, refuses to start when asked to, is quiet when durable", async () => {
    const volatile = await startOwnRedis();
    const durable = await startOwnRedis([
      "--appendonly",
      "yes",
      "--appendfsync",
      "everysec",
      "--maxmemory-policy",
      "noeviction",
      "--dir",
      "/tmp",
      "--appenddirname",
      `appendonly-${process.pid}`,
    ]);
    servers.push(volatile, durable);
    stack = await startProcessStack("durability", { redisUrl: volatile.url });

    const warned = stack.startBot({ LOG_LEVEL: "info" });
    await untilLogged(warned, "bot started");
    const [warning] = logged(
      warned,
      "Redis could lose reminders and sessions: use AOF (appendfsync everysec) and maxmemory-policy noeviction",
    );
    expect(String(warning?.problems)).toContain("appendonly no");

    const refused = stack.startBot({ REDIS_REQUIRE_DURABLE: "true" });
    expect(await refused.exited).toBe(1);
    expect(JSON.stringify(refused.logs())).toContain("Redis is not durable");

    const quiet = stack.startBot({ LOG_LEVEL: "info", REDIS_URL: durable.url });
    await untilLogged(quiet, "bot started");
    expect(logged(quiet, "Redis could lose reminders and sessions")).toEqual([]);
    expect(JSON.stringify(quiet.logs())).not.toContain("could lose");
  }, 30_000);
});

describe("connection errors for URLs with a password", () => {
  let stack: ProcessStack;
  afterAll(() => stack.stop());

  it("are logged without the password, as written or decoded (the run's log scan knows them too)", async () => {
    stack = await startProcessStack("url-passwords");
    const [redisPort, postgresPort] = [await freePort(), await freePort()];
    const bot = stack.startBot({
      LOG_LEVEL: "info",
      REDIS_URL: `redis://bot:r3d1s%2Fpw@127.0.0.1:${redisPort}`,
      DATABASE_URL: `postgres://ledger:pg%40pw@127.0.0.1:${postgresPort}/topup`,
    });
    await untilLogged(bot, "Redis is unreachable");
    await untilLogged(bot, "waiting for the ledger's database");
    for (const msg of ["Redis is unreachable", "waiting for the ledger's database"]) {
      expect(String(logged(bot, msg)[0]?.reason)).toContain("ECONNREFUSED");
    }
    expect(JSON.stringify(bot.logs())).not.toMatch(/r3d1s|pg%40pw|pg@pw/);
    bot.child.kill("SIGKILL");
    await bot.exited;
  }, 20_000);
});
