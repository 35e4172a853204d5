// The ledger is the source of money records: /history, /txn and /recent read it after Redis is
// flushed, and the purchases the previous release kept in Redis are taken over at the first
// start (one still in flight is finished and told, once).
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ProviderClient } from "../../src/adapters/provider/client.js";
import { expectReply } from "../support/chat.js";
import { captureLogs } from "../support/log-capture.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { PROVIDER_TOKEN, type Stack, startStack } from "../support/stack.js";

const SUPPORT = -100777;
const AGENT = 7101;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let stack: Stack;
let redis: Redis;
let prefix: string;

beforeAll(async () => {
  stack = await startStack("ledger_upgrade", {
    SUPPORT_CHAT_IDS: String(SUPPORT),
    STAFF_USER_IDS: String(AGENT),
  });
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
  prefix = stack.env.REDIS_KEY_PREFIX as string;
});
afterAll(async () => {
  redis.disconnect();
  await stack.stop();
});

async function flushRedis(): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
}

describe("after Redis is flushed", () => {
  it("/history, /txn and /recent still show every top-up", async () => {
    const user = stack.emulator.user({ id: 7100, first_name: "Fl", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
    const topup = stack.sandbox.topups.at(-1);
    if (!topup) throw new Error("no top-up");
    await flushRedis();

    const history = await expectReply(user, () => user.sendText("/history"), "Gold");
    expect(history.text).toContain(topup.txnId);
    const group = stack.emulator.group({ id: SUPPORT, title: "Support", type: "supergroup" });
    const agent = group.member({ id: AGENT, first_name: "Agent", language_code: "en" });
    const card = await expectReply(
      agent,
      () => agent.sendText(`/txn ${topup.txnId}`),
      "Transaction ID",
    );
    expect(card.text).toContain(`Order ID: ${topup.orderId}`);
    expect(card.text).toContain("Through the bot: ✅ done");
    const recent = await expectReply(
      agent,
      () => agent.sendText("/recent 1000001"),
      "Latest top-ups",
    );
    expect(recent.text).toContain("8000000011");
  });
});

describe("the upgrade from the release that kept purchases in Redis", () => {
  /** A record exactly as the previous release wrote it, with its indices. */
  async function writeOldRecord(record: Record<string, unknown>, open: boolean) {
    const id = record.id as string;
    const multi = redis
      .multi()
      .set(`${prefix}purchase:${id}`, JSON.stringify(record))
      .lpush(`${prefix}purchases:recent`, id)
      .lpush(`${prefix}purchases:buyer:${record.buyer}`, id)
      .set(`${prefix}purchase-ref:${record.reference}`, id);
    const checkout = record.checkout as { id: string } | null;
    if (checkout) multi.set(`${prefix}purchase-checkout:${checkout.id}`, id);
    if (open) multi.zadd(`${prefix}purchases:open`, 0, id);
    await multi.exec();
  }

  it("finishes and tells a purchase that was in flight, once, and keeps the history", async () => {
    const buyer = stack.emulator.user({ id: 7200, first_name: "Up", language_code: "en" });
    const other = stack.emulator.user({ id: 7201, first_name: "Ot", language_code: "en" });
    // The previous release sent this top-up and was stopped before it knew the outcome.
    const client = new ProviderClient({
      baseUrl: stack.sandbox.baseUrl(),
      version: "v1.0.1",
      token: PROVIDER_TOKEN,
      timeoutMs: 2_000,
      readRetries: 0,
      timeZone: "UTC",
      logger: captureLogs().logger,
    });
    const info = await client.getCustomer("1000001");
    const connection = info.connections[0];
    if (!connection) throw new Error("no connection");
    const offer = await client.getPackages(info.customer.cuid, connection);
    const gold = offer.bouquets.find((b) => b.code === "TV-GOLD-M");
    if (!gold) throw new Error("no Gold");
    const reference = "tg7200-old1";
    await client.topup({
      cuid: "1000001",
      service: "tv",
      connectionId: connection.id,
      checkoutId: offer.checkout.id,
      bouquetCode: gold.code,
      amount: gold.price,
      reference,
    });
    await client.close();
    const now = Date.now();
    const common = {
      buyer: buyer.chatId,
      language: "en",
      customer: { cuid: "1000001", name: "Ram Thapa" },
      connection: { service: "tv", id: connection.id },
      bouquet: { code: gold.code, name: gold.name, price: gold.price },
      attempt: 1,
      refusal: null,
      reason: null,
      createdAt: now - 60_000,
      updatedAt: now - 60_000,
    };
    await writeOldRecord(
      {
        ...common,
        id: "old-in-flight",
        checkout: { id: offer.checkout.id, issuedAt: now - 60_000 },
        earlierCheckouts: ["old-refused-token"],
        reference,
        phase: "requested",
        told: null,
        transaction: null,
      },
      true,
    );
    await writeOldRecord(
      {
        ...common,
        id: "old-done",
        checkout: { id: "old-done-token", issuedAt: now - 86_400_000 },
        earlierCheckouts: [],
        reference: "tg7200-old0",
        phase: "charged",
        told: "charged",
        transaction: { txnId: "TXN-OLD-0", amount: gold.price, date: null },
        createdAt: now - 86_400_000,
        updatedAt: now - 86_400_000,
      },
      false,
    );
    // A record the previous release is still working on (its lease held) waits for it.
    await writeOldRecord(
      {
        ...common,
        buyer: 7201,
        id: "old-leased",
        checkout: null,
        earlierCheckouts: [],
        reference: "tg7201-old2",
        phase: "created",
        told: null,
        transaction: null,
      },
      true,
    );
    await redis.set(`${prefix}purchase:old-leased:lease`, "old-instance", "PX", 1_500);

    const receipt = buyer.waitForText("Top-up successful", { timeoutMs: 15_000 });
    await stack.restart();
    const told = await receipt;
    expect(told.text).toContain(stack.sandbox.topups.at(-1)?.txnId);
    await sleep(2_500); // more reconciliation passes
    // The leased record's turn comes once its lease lapsed, later on a busy machine.
    await vi.waitFor(() => expect(other.messages()).not.toHaveLength(0), { timeout: 10_000 });
    expect(buyer.messages().filter((m) => m.text?.includes("Top-up successful"))).toHaveLength(1);
    expect(stack.sandbox.topups.filter((t) => t.udf1 === reference)).toHaveLength(1);
    // The leased one, once its lease lapsed: it never reached the provider.
    expect(other.messages().map((m) => m.text ?? "")).toEqual([
      expect.stringContaining("Nothing was charged"),
    ]);

    // Everything is in the ledger now, and nothing of it in Redis.
    const { default: pg } = await import("pg");
    const ledger = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await ledger.connect();
    const { rows } = await ledger.query(
      "SELECT id, phase, told FROM purchases WHERE id LIKE 'old-%' ORDER BY id",
    );
    const tokens = await ledger.query(
      "SELECT checkout_id FROM purchase_checkouts WHERE purchase_id = 'old-in-flight' ORDER BY 1",
    );
    await ledger.end();
    expect(rows).toEqual([
      { id: "old-done", phase: "charged", told: "charged" },
      { id: "old-in-flight", phase: "charged", told: "charged" },
      { id: "old-leased", phase: "not-charged", told: "not-charged" },
    ]);
    expect(tokens.rows.map((r) => r.checkout_id).sort()).toEqual(
      [offer.checkout.id, "old-refused-token"].sort(),
    );
    expect(await redis.keys(`${prefix}purchase*`)).toEqual([]);
    const history = await expectReply(buyer, () => buyer.sendText("/history"), "TXN-OLD-0");
    expect(history.text).toContain(stack.sandbox.topups.at(-1)?.txnId);
  }, 30_000);
});
