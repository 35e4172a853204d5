// A payment confirmation is never dropped: not by the flood limit, not while Redis does not
// answer, not when the ledger is down and the process dies before it is back (the journal in
// DATA_DIR is replayed by the next one). Real bot processes, the emulator taking the payment,
// a Redis and a PostgreSQL of the test's own where they are stopped.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { WEBHOOK_PATH } from "../support/dispatcher.js";
import { purchasesOf, toldPurchasesOf } from "../support/ledger-rows.js";
import { confirmationOf, logged, PAID, withInvoice } from "../support/paying.js";
import { type OwnPostgres, startOwnPostgres } from "../support/postgres-server.js";
import { type OwnRedis, startOwnRedis } from "../support/redis-server.js";
import { startReplica } from "../support/replica.js";
import { BOT_TOKEN } from "../support/stack.js";
import { until } from "../support/wait.js";

/** Telegram cancels a payment whose check is not answered in time: a few seconds here. */
const emulator = { preCheckoutTimeoutMs: 5_000 };

const textsOf = (user: { messages(): { text?: string }[] }, from = 0) =>
  user
    .messages()
    .slice(from)
    .map((message) => message.text ?? "");

describe("a buyer who flooded the bot, then pays", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("confirm_flood", { emulator });
  }, 30_000);
  afterAll(() => stack.stop());

  it("is topped up once and gets a receipt", async () => {
    const bot = stack.startBot(PAID);
    const { user, invoice } = await withInvoice(stack, 6500);
    const started = Date.now();
    for (let i = 0; i < 40; i++) user.sendText(`hello ${i}`);
    await until(() => logged(bot, "flood: a user's updates are dropped").length > 0, 5_000);

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
    // Paid within the flood window: the limit still held the buyer back.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await receipt).text).toContain("Paid:");
    await sleep(1_500); // reconciliation passes: nothing is topped up or told again
    expect(stack.sandbox.topups).toHaveLength(1);
    expect(textsOf(user).filter((text) => text.includes("Top-up successful"))).toHaveLength(1);
  }, 45_000);
});

describe("Redis not answering when the payment arrives", () => {
  let redis: OwnRedis;
  let stack: ProcessStack;
  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startProcessStack("confirm_redis", { redisUrl: redis.url, emulator });
  }, 30_000);
  afterAll(async () => {
    redis.resume();
    await stack.stop();
    await redis.stop();
  });

  it("records the payment and tops up, and never says nothing was charged", async () => {
    stack.startBot({ ...PAID, REDIS_COMMAND_TIMEOUT_MS: "500" });
    const { user, invoice } = await withInvoice(stack, 6510);
    const before = user.messages().length;
    redis.pause();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
    expect((await receipt).text).toContain("Paid:");
    expect(stack.sandbox.topups).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    const told = textsOf(user, before);
    expect(told.some((text) => text.includes("Payment received"))).toBe(true);
    expect(told.filter((text) => /nothing was charged|temporarily/i.test(text))).toEqual([]);
    redis.resume();
  }, 45_000);
});

describe("the ledger down when the payment arrives, and the bot killed before it is back", () => {
  let postgres: OwnPostgres;
  let stack: ProcessStack;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await startProcessStack("confirm_journal", { postgresUrl: postgres.url });
  }, 40_000);
  afterAll(async () => {
    await stack.stop();
    await postgres.stop();
  });

  it("keeps the confirmation in the journal, and the next process tops up once", async () => {
    const first = stack.startBot({ ...PAID, DATABASE_STATEMENT_TIMEOUT_MS: "1000" });
    const { user, invoice } = await withInvoice(stack, 6520);
    const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
    await postgres.kill();

    // Telegram's confirmation (its check passed just before the ledger went down).
    const processing = user.waitForText("being processed", { timeoutMs: 10_000 });
    stack.emulator.injectUpdate(
      BOT_TOKEN,
      confirmationOf(user, invoice, purchase?.id ?? "", {
        updateId: 778_001,
        id: "tg-charge-journal",
        providerId: "prov-journal",
      }),
    );
    expect((await processing).text).not.toMatch(/nothing was charged/i);
    const journal = join(stack.dataDir, "payments.journal");
    expect(readFileSync(journal, "utf8")).toContain('"tg-charge-journal"');
    // The log line may reach this process's pipe after the buyer's message.
    const kept = () => logged(first, "payment kept in the journal until the ledger is back");
    await until(() => kept().length > 0, 5_000);
    expect(kept()).toHaveLength(1);
    // Delivered again (new updates, the same charge) while the ledger is still away: one line.
    for (const updateId of [778_002, 778_003]) {
      const again = user.waitForText("being processed", { timeoutMs: 10_000 });
      stack.emulator.injectUpdate(
        BOT_TOKEN,
        confirmationOf(user, invoice, purchase?.id ?? "", {
          updateId,
          id: "tg-charge-journal",
          providerId: "prov-journal",
        }),
      );
      await again;
    }
    expect(readFileSync(journal, "utf8").trim().split("\n")).toHaveLength(1);

    await sleep(2_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(stack.sandbox.topups).toHaveLength(0);

    await postgres.start();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 20_000 });
    const second = stack.startBot(PAID);
    expect((await receipt).text).toContain("prov-journal");
    await sleep(2_500); // reconciliation passes: nothing is topped up or told again
    expect(stack.sandbox.topups).toHaveLength(1);
    expect(textsOf(user).filter((text) => text.includes("Top-up successful"))).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    expect(logged(second, "payments written after all")).toHaveLength(1);
    expect(existsSync(journal)).toBe(false);
  }, 90_000);
});

describe("polling: the bot killed while a confirmation is being written", () => {
  let postgres: OwnPostgres;
  let stack: ProcessStack;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await startProcessStack("confirm_polled", { postgresUrl: postgres.url });
  }, 40_000);
  afterAll(async () => {
    postgres.resume();
    await stack.stop();
    await postgres.stop();
  });

  it("leaves the batch unacknowledged: Telegram delivers the confirmation again, topped up once", async () => {
    // The ledger hangs (SIGSTOP) rather than refusing: the confirmation is neither in the
    // ledger nor in the journal while the process runs, and it is killed before either.
    const first = stack.startBot({ ...PAID, DATABASE_STATEMENT_TIMEOUT_MS: "20000" });
    const { user, invoice } = await withInvoice(stack, 6530);
    const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
    postgres.pause();
    stack.emulator.injectUpdate(
      BOT_TOKEN,
      confirmationOf(user, invoice, purchase?.id ?? "", {
        updateId: 779_001,
        id: "tg-charge-polled",
        providerId: "prov-polled",
      }),
    );
    // Fetched within a poll (1 s); the next getUpdates, which would acknowledge it, waits.
    await sleep(2_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(existsSync(join(stack.dataDir, "payments.journal"))).toBe(false);

    postgres.resume();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 20_000 });
    stack.startBot(PAID);
    expect((await receipt).text).toContain("prov-polled");
    await sleep(1_500);
    expect(stack.sandbox.topups).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
  }, 60_000);
});

describe("webhook mode: a confirmation neither the ledger nor the journal can take", () => {
  let postgres: OwnPostgres;
  let stack: ProcessStack;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await startProcessStack("confirm_webhook", {
      postgresUrl: postgres.url,
      emulator: { webhook: { timeoutMs: 5_000, retryDelayMs: 300, maxAttempts: 100 } },
    });
  }, 40_000);
  afterAll(async () => {
    await stack.stop();
    await postgres.stop();
  });

  it("is answered 500, delivered again, and topped up once the ledger is back", async () => {
    // DATA_DIR is a file: the journal cannot be written.
    const dataDir = join(stack.dataDir, "not-a-folder");
    writeFileSync(dataDir, "");
    const { bot } = await startReplica(stack, (base) => `${base}${WEBHOOK_PATH}`, {
      ...PAID,
      DATA_DIR: dataDir,
      DATABASE_STATEMENT_TIMEOUT_MS: "1000",
    });
    const { user, invoice } = await withInvoice(stack, 6530);
    const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
    const before = user.messages().length;
    await postgres.kill();

    const updateId = 779_001;
    const attempts = () =>
      stack.emulator.webhookDeliveries().filter((delivery) => delivery.updateId === updateId);
    stack.emulator.injectUpdate(
      BOT_TOKEN,
      confirmationOf(user, invoice, purchase?.id ?? "", {
        updateId,
        id: "tg-charge-webhook",
        providerId: "prov-webhook",
      }),
    );
    await until(() => attempts().filter((attempt) => attempt.status === 500).length >= 2, 10_000);
    // Each 500's log line may reach this process's pipe after the answer.
    const keptNowhere = "payment confirmation kept nowhere: it must be delivered again";
    await until(() => logged(bot, keptNowhere).length >= 2, 5_000).catch(() => undefined);
    expect(
      logged(bot, "payment confirmation kept nowhere: it must be delivered again").length,
    ).toBeGreaterThanOrEqual(2);

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 20_000 });
    await postgres.start();
    expect((await receipt).text).toContain("prov-webhook");
    expect(attempts().at(-1)?.status).toBe(200);
    expect(stack.sandbox.topups).toHaveLength(1);
    const told = textsOf(user, before);
    expect(told.filter((text) => /nothing was charged|temporarily/i.test(text))).toEqual([]);
    expect(told.filter((text) => text.includes("Payment received"))).toHaveLength(1);
  }, 90_000);
});

describe("polling: a confirmation neither the ledger nor the journal can take", () => {
  const ADMIN = 6590;
  let postgres: OwnPostgres;
  let stack: ProcessStack;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await startProcessStack("confirm_unkept", { postgresUrl: postgres.url });
  }, 40_000);
  afterAll(async () => {
    await stack.stop();
    await postgres.stop();
  });

  /** getUpdates calls after `since` that acknowledged `updateId` (asked for what follows it). */
  const acknowledging = (updateId: number, since: number) =>
    stack.emulator
      .calls("getUpdates")
      .filter((call) => call.time.getTime() >= since && Number(call.payload.offset) > updateId);
  const keptNowhere = "payment confirmation kept nowhere: it must be delivered again";

  it("is not acknowledged, is handled again until the ledger is back, and is topped up once", async () => {
    // The journal's folder stands under a regular file: it cannot be written (even as root).
    const blocker = join(stack.dataDir, "blocker");
    writeFileSync(blocker, "");
    const bot = stack.startBot({
      ...PAID,
      DATABASE_STATEMENT_TIMEOUT_MS: "1000",
      PAYMENT_JOURNAL_DIR: join(blocker, "journal"),
      ADMIN_USER_IDS: String(ADMIN),
    });
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const { user, invoice } = await withInvoice(stack, 6540);
    const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
    const before = user.messages().length;
    await postgres.kill();

    const updateId = 779_101;
    const injectedAt = Date.now();
    stack.emulator.injectUpdate(
      BOT_TOKEN,
      confirmationOf(user, invoice, purchase?.id ?? "", {
        updateId,
        id: "tg-charge-unkept",
        providerId: "prov-unkept",
      }),
    );
    // Tried again and again (1 s, then 2 s, ...), never acknowledged meanwhile.
    await until(() => logged(bot, keptNowhere).length >= 3, 15_000);
    const alerts = () => textsOf(admin).filter((text) => text.includes("could not be kept"));
    await until(() => alerts().length > 0, 5_000);
    expect(acknowledging(updateId, injectedAt)).toEqual([]);
    // The buyer is told nothing untrue meanwhile: nothing at all, until it is kept.
    expect(textsOf(user, before)).toEqual([]);

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 25_000 });
    await postgres.start();
    expect((await receipt).text).toContain("prov-unkept");
    await until(() => acknowledging(updateId, injectedAt).length > 0, 10_000);
    await sleep(1_500); // reconciliation passes: nothing is topped up or told again
    expect(stack.sandbox.topups).toHaveLength(1);
    const told = textsOf(user, before);
    expect(told.filter((text) => text.includes("Payment received"))).toHaveLength(1);
    expect(told.filter((text) => /nothing was charged|temporarily/i.test(text))).toEqual([]);
    // One alert, however many attempts.
    expect(alerts()).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    bot.child.kill("SIGTERM");
    expect(await bot.exited).toBe(0);
  }, 90_000);

  it("stopped while it is held, leaves it with Telegram: the next process tops it up once", async () => {
    const blocker = join(stack.dataDir, "blocker-2");
    writeFileSync(blocker, "");
    const first = stack.startBot({
      ...PAID,
      DATABASE_STATEMENT_TIMEOUT_MS: "1000",
      PAYMENT_JOURNAL_DIR: join(blocker, "journal"),
    });
    const { user, invoice } = await withInvoice(stack, 6541);
    const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
    const topupsBefore = stack.sandbox.topups.length;
    await postgres.kill();
    const updateId = 779_201;
    const injectedAt = Date.now();
    stack.emulator.injectUpdate(
      BOT_TOKEN,
      confirmationOf(user, invoice, purchase?.id ?? "", {
        updateId,
        id: "tg-charge-stopped",
        providerId: "prov-stopped",
      }),
    );
    await until(() => logged(first, keptNowhere).length >= 1, 10_000);

    // A graceful stop: the drain ends, and no getUpdates acknowledges the confirmation.
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(acknowledging(updateId, injectedAt)).toEqual([]);
    expect(logged(first, "bot stopped")).toHaveLength(1);

    await postgres.start();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 25_000 });
    stack.startBot(PAID);
    expect((await receipt).text).toContain("prov-stopped");
    await sleep(1_500);
    expect(stack.sandbox.topups).toHaveLength(topupsBefore + 1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
  }, 90_000);
});
