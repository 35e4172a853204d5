// The ledger under faults, with real bot processes: Redis restarting empty under a top-up,
// PostgreSQL killed and restarted around purchases (a server of the test's own, stopped by
// PID), and two instances on one database with one killed mid-purchase.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotProcess, type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { purchasesOf, toldPurchasesOf } from "../support/ledger-rows.js";
import { freePort } from "../support/ports.js";
import { type OwnPostgres, startOwnPostgres } from "../support/postgres-server.js";
import { type OwnRedis, startOwnRedis } from "../support/redis-server.js";
import { httpStatus, until } from "../support/wait.js";

const logged = (bot: BotProcess, msg: string) => bot.logs().filter((line) => line.msg === msg);

/** The ledger's rows of one buyer, as finance would read them. */
const receipts = (messages: { text?: string }[]) =>
  messages.filter((message) => message.text?.includes("Top-up successful"));

describe("a top-up in flight when the bot is killed and Redis comes back empty", () => {
  let redis: OwnRedis;
  let stack: ProcessStack;
  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startProcessStack("ledger_redis_empty", { redisUrl: redis.url });
  }, 30_000);
  afterAll(async () => {
    await stack.stop();
    await redis.stop();
  });

  it("is verified with txn-status and told after the restart, exactly once", async () => {
    const { sandbox, emulator } = stack;
    const env = { TOPUP_LOCK_SECONDS: "2", RECONCILE_INTERVAL_SECONDS: "1", LOG_LEVEL: "info" };
    const first = stack.startBot(env);
    const user = emulator.user({ id: 6200, first_name: "Em", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 15_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 60_000 });
    user.press(/Confirm/);
    await until(() => sandbox.topups.length === 1, 10_000);
    first.child.kill("SIGKILL");
    await first.exited;
    // Redis restarts without its data: sessions, locks and the polling turn are gone.
    await redis.kill();
    await redis.start();
    sandbox.clearFaults();

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    const second = stack.startBot(env);
    await receipt;
    await sleep(2_500); // two more reconciliation passes: nothing is told again
    expect(receipts(user.messages())).toHaveLength(1);
    expect(
      sandbox.requests.filter((r) => r.operation === "subscription-package-topup"),
    ).toHaveLength(1);
    expect(sandbox.topups).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    second.child.kill("SIGTERM");
    await second.exited;
  }, 60_000);
});

describe("PostgreSQL failing under a running bot", () => {
  let postgres: OwnPostgres;
  let stack: ProcessStack;
  let bot: BotProcess;
  let port: number;
  let metricsPort: number;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await startProcessStack("ledger_pg_down", { postgresUrl: postgres.url });
    port = await freePort();
    metricsPort = await freePort();
    bot = stack.startBot({
      HTTP_PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: "info",
      TOPUP_LOCK_SECONDS: "2",
      RECONCILE_INTERVAL_SECONDS: "1",
      DATABASE_STATEMENT_TIMEOUT_MS: "1000",
    });
    await until(() => logged(bot, "bot started").length === 1, 20_000);
  }, 40_000);
  afterAll(async () => {
    await stack.stop();
    await postgres.stop();
  });

  const readyz = () => httpStatus(`http://127.0.0.1:${port}/readyz`);
  const databaseUp = async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return /^bot_database_up (\d)/m.exec(metrics)?.[1];
  };

  it("refuses a new purchase at once, keeps browsing, reports it, and comes back by itself", async () => {
    const { sandbox, emulator } = stack;
    const user = emulator.user({ id: 6300, first_name: "Pg", language_code: "en" });
    await postgres.kill();
    await until(async () => (await readyz()) === 503, 5_000);
    expect(await databaseUp()).toBe("0");

    // Browsing needs only Redis and the provider.
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 5_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    const started = Date.now();
    await expectReply(user, () => user.press(/Confirm/), "Nothing was charged", 5_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(sandbox.topups).toHaveLength(0);

    await sleep(2_500); // several probes fail: still one line
    await postgres.start();
    await until(async () => (await readyz()) === 200, 10_000);
    expect(await databaseUp()).toBe("1");
    expect(logged(bot, "the ledger's database is unreachable")).toHaveLength(1);
    expect(logged(bot, "the ledger's database is unreachable")[0]?.level).toBe(50);
    expect(logged(bot, "the ledger's database is reachable").length).toBe(2); // start, back

    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 5_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    await expectReply(user, () => user.press(/Confirm/), "Top-up successful", 10_000);
    expect(sandbox.topups).toHaveLength(1);
    const text = bot.logs().map((line) => JSON.stringify(line));
    expect(text.filter((line) => line.includes("\\n    at "))).toEqual([]);
  }, 40_000);

  it("tells an outcome learned while it is down, and writes it when it is back", async () => {
    const { sandbox, emulator } = stack;
    const user = emulator.user({ id: 6301, first_name: "Pw", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 5_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 1_500, times: 1 });
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    const topupCalls = () =>
      sandbox.requests.filter((r) => r.operation === "subscription-package-topup").length;
    const before = topupCalls();
    user.press(/Confirm/);
    // "requested" is written before the call leaves; then the database goes away.
    await until(() => topupCalls() > before, 10_000);
    await postgres.kill();
    await receipt;
    expect(sandbox.topups).toHaveLength(2);
    await until(
      () => logged(bot, "purchase outcome kept in memory until the store is back").length > 0,
      10_000,
    );
    await postgres.start();
    await until(() => logged(bot, "purchase outcomes written after all").length > 0, 10_000);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    await sleep(2_000); // reconciliation passes: the receipt is not sent again
    expect(receipts(user.messages())).toHaveLength(1);
  }, 40_000);

  it("a paused database: a purchase is refused within seconds, and never half-done", async () => {
    const { sandbox, emulator } = stack;
    const user = emulator.user({ id: 6302, first_name: "Pp", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 5_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    const before = sandbox.topups.length;
    postgres.pause();
    try {
      await expectReply(user, () => user.press(/Confirm/), "Nothing was charged", 6_000);
    } finally {
      postgres.resume();
    }
    expect(sandbox.topups).toHaveLength(before);
    await until(async () => (await readyz()) === 200, 10_000);
    // A statement cut off by the pause may still have been committed: such a purchase never
    // left for the provider, and reconciliation settles it "not charged" once its lease lapses.
    const settled = async () =>
      (await purchasesOf(stack.databaseUrl, user.chatId)).every(
        (row) => row.phase === "not-charged",
      );
    await until(settled, 10_000);
    expect(sandbox.topups).toHaveLength(before);
  }, 30_000);
});

describe("two instances on one database, one killed mid-purchase", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("ledger_two");
  }, 30_000);
  afterAll(() => stack.stop());

  it("gives one receipt and one top-up", async () => {
    const { sandbox, emulator } = stack;
    const env = {
      TOPUP_LOCK_SECONDS: "2",
      RECONCILE_INTERVAL_SECONDS: "1",
      POLLING_LEASE_SECONDS: "2",
      LOG_LEVEL: "info",
    };
    const a = stack.startBot(env);
    await until(() => logged(a, "this instance polls Telegram").length > 0, 20_000);
    const b = stack.startBot(env);
    await until(() => logged(b, "bot started").length > 0, 20_000);
    const user = emulator.user({ id: 6400, first_name: "Tw", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 10_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 60_000 });
    user.press(/Confirm/);
    await until(() => sandbox.topups.length === 1, 10_000);
    a.child.kill("SIGKILL");
    sandbox.clearFaults();
    await user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    await sleep(2_000);
    expect(receipts(user.messages())).toHaveLength(1);
    expect(
      sandbox.requests.filter((r) => r.operation === "subscription-package-topup"),
    ).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    // The survivor goes on serving.
    await expectReply(user, () => user.sendText("/history"), "TXN", 10_000);
  }, 60_000);
});
