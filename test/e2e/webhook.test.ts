// Webhook mode with real processes: one replica (the secret, a journey, the health
// endpoints), then two replicas behind a round-robin dispatcher sharing one Redis.
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { type Dispatcher, startDispatcher, WEBHOOK_PATH } from "../support/dispatcher.js";
import { type Replica, SECRET, startReplica } from "../support/replica.js";
import { BOT_TOKEN } from "../support/stack.js";
import { httpStatus as status, until } from "../support/wait.js";

const fastWebhook = { webhook: { timeoutMs: 5_000, retryDelayMs: 200, maxAttempts: 20 } };

describe("webhook mode, one replica", () => {
  let stack: ProcessStack;
  let replica: Replica;
  beforeAll(async () => {
    stack = await startProcessStack("webhook-one", { emulator: fastWebhook });
    // Telegram posts straight to the replica: WEBHOOK_URL is the replica's own address.
    replica = await startReplica(stack, (base) => `${base}${WEBHOOK_PATH}`);
  });
  afterAll(() => stack.stop());

  it("sets the webhook with the secret and the updates it handles, and never polls", () => {
    const [set] = stack.emulator.calls("setWebhook");
    expect(set?.payload.url).toBe(`${replica.base}${WEBHOOK_PATH}`);
    expect(set?.payload.secret_token).toBe(SECRET);
    expect(set?.payload.allowed_updates).toEqual([
      "message",
      "callback_query",
      "my_chat_member",
      "pre_checkout_query",
    ]);
    expect(stack.emulator.calls("getUpdates")).toHaveLength(0);
    expect(stack.emulator.calls("deleteWebhook")).toHaveLength(0);
    expect(stack.emulator.webhookInfo().url).toBe(`${replica.base}${WEBHOOK_PATH}`);
  });

  it("will not start with a short secret or a plain-http URL, and says which variable", async () => {
    const short = stack.startBot({
      WEBHOOK_URL: "http://bot.example.com/hook",
      WEBHOOK_SECRET: "short_secret",
    });
    let said = "";
    short.child.stderr?.on("data", (chunk) => (said += String(chunk)));
    short.child.stdout?.on("data", (chunk) => (said += String(chunk)));
    expect(await short.exited).toBe(1);
    expect(said).toMatch(/WEBHOOK_SECRET: must be 32-256 characters/);
    expect(said).toMatch(/WEBHOOK_URL: must be an https:\/\/ URL/);
    expect(said).not.toContain("short_secret");
    expect(said).not.toContain("bot.example.com");
  });

  it("refuses a POST without the secret or with a wrong one (401), and does not handle it", async () => {
    const update = (id: number) =>
      JSON.stringify({
        update_id: 900_000 + id,
        message: {
          message_id: 1,
          date: 0,
          chat: { id: 6500, type: "private", first_name: "X" },
          from: { id: 6500, is_bot: false, first_name: "X" },
          text: "/start",
        },
      });
    const url = `${replica.base}${WEBHOOK_PATH}`;
    expect(await status(url, { method: "POST", body: update(1) })).toBe(401);
    const wrong = { "x-telegram-bot-api-secret-token": "not-the-secret" };
    expect(await status(url, { method: "POST", body: update(2), headers: wrong })).toBe(401);
    expect(await status(`${replica.base}/healthz`)).toBe(200);
    // Metrics are on their own listener, never on the public port.
    expect(await status(`${replica.base}/metrics`)).toBe(404);
    const metrics = await (await fetch(`${replica.metricsBase}/metrics`)).text();
    expect(metrics).toContain('bot_webhook_rejections_total{reason="secret"} 2');
    await sleep(300);
    expect(stack.emulator.messages(6500)).toHaveLength(0);
  });

  it("takes a whole journey, the top-up and its receipt", async () => {
    const user = stack.emulator.user({ id: 6501, first_name: "We", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
    expect(stack.sandbox.topups).toHaveLength(1);
    const failed = stack.emulator.webhookDeliveries().filter((d) => d.status !== 200);
    expect(failed).toHaveLength(0);
  });

  it("answers an update that fails with an apology and logs it once, without the user's data", async () => {
    const user = stack.emulator.user({
      id: 6502,
      first_name: "Ramesh",
      last_name: "Thapa",
      username: "ramesh_t",
      phone_number: "+977 9841000001",
      language_code: "en",
    });
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    // The answer to the shared contact (a customer's phone and name) fails at Telegram.
    stack.emulator.failNext("sendMessage", { error_code: 400, description: "Bad Request: test" });
    await expectReply(user, () => user.sendContact(), "Sorry, something went wrong");
    // The log line may reach this process's pipe after the apology.
    const failuresOf = () => replica.bot.logs().filter((line) => line.userId === 6502);
    await until(() => failuresOf().length > 0, 5_000);
    const failures = failuresOf();
    expect(failures).toEqual([
      expect.objectContaining({
        msg: "update failed",
        err: expect.objectContaining({ type: "GrammyError", method: "sendMessage" }),
      }),
    ]);
    expect(replica.bot.logs().filter((line) => line.msg === "webhook update failed")).toEqual([]);
    const said = JSON.stringify(replica.bot.logs());
    for (const personal of ["9841000001", "Ramesh", "Thapa", "ramesh_t", "Ram T", BOT_TOKEN]) {
      expect(said).not.toContain(personal);
    }
    const delivered = stack.emulator.webhookDeliveries().at(-1);
    expect(delivered?.status).toBe(200);
  });
});

describe("webhook mode, two replicas behind a round-robin dispatcher", () => {
  let stack: ProcessStack;
  let dispatcher: Dispatcher;
  let replicas: Replica[];
  let nextUser = 6600;
  const newUser = () =>
    stack.emulator.user({ id: nextUser++, first_name: "Rr", language_code: "en" });

  beforeAll(async () => {
    stack = await startProcessStack("webhook-two", { emulator: fastWebhook });
    dispatcher = await startDispatcher();
    replicas = await Promise.all([
      startReplica(stack, dispatcher.url),
      startReplica(stack, dispatcher.url),
    ]);
    dispatcher.replicas = replicas.map((replica) => replica.base);
  });
  afterAll(async () => {
    await stack.stop();
    await dispatcher.close();
  });

  async function atConfirm(user: ChatUser): Promise<void> {
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
  }

  /**
   * Confirms while the provider holds the top-up `holdMs` before answering; returns the
   * sandbox's top-up count before, and which replica took the Confirm tap.
   */
  async function confirmSlowly(user: ChatUser, holdMs: number) {
    const before = stack.sandbox.topups.length;
    stack.sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: holdMs });
    const mark = dispatcher.deliveries.length;
    await user.press(/Confirm/);
    await until(() => stack.sandbox.topups.length > before, 5_000);
    await until(() => dispatcher.deliveries.length > mark, 5_000);
    return { before, paying: dispatcher.deliveries[mark]?.replica as number };
  }

  it("runs concurrent journeys on both replicas, one top-up each", async () => {
    const users = [newUser(), newUser(), newUser(), newUser()];
    const before = stack.sandbox.topups.length;
    await Promise.all(
      users.map(async (user) => {
        await atConfirm(user);
        await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      }),
    );
    expect(stack.sandbox.topups.length).toBe(before + users.length);
    const served = new Set(dispatcher.deliveries.map((delivery) => delivery.replica));
    expect(served).toEqual(new Set([0, 1]));
  }, 60_000);

  it("pays once for a double tap split across the replicas", async () => {
    const user = newUser();
    await atConfirm(user);
    const before = stack.sandbox.topups.length;
    const receipt = user.waitForText("Top-up successful");
    const mark = dispatcher.deliveries.length;
    await Promise.all([user.press(/Confirm/), user.press(/Confirm/)]);
    await receipt;
    await sleep(500);
    const taps = dispatcher.deliveries.slice(mark);
    expect(new Set(taps.map((tap) => tap.replica)).size).toBe(2);
    expect(stack.sandbox.topups.length).toBe(before + 1);
    const receipts = stack.emulator
      .messages(user.chatId)
      .filter((stored) => stored.message.text?.includes("Top-up successful"));
    expect(receipts).toHaveLength(1);
  }, 30_000);

  it("handles an update delivered to both replicas once", async () => {
    const user = newUser();
    dispatcher.toAll = true;
    try {
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
      await sleep(500);
    } finally {
      dispatcher.toAll = false;
    }
    const menus = stack.emulator
      .messages(user.chatId)
      .filter((stored) => stored.message.text?.includes("Choose a package"));
    expect(menus).toHaveLength(1);
    const logs = replicas.flatMap((replica) => replica.bot.logs());
    expect(logs.filter((line) => line.msg === "duplicate update dropped").length).toBeGreaterThan(
      0,
    );
  }, 30_000);

  it("keeps one chat's messages in order when the next reaches the other replica mid-update", async () => {
    const user = newUser();
    // Telegram sends a chat's next update once the previous one is answered; a slow lookup is
    // answered after 3 s while it goes on, so "hello" reaches the other replica meanwhile.
    stack.sandbox.setFault("get-customer-information", { kind: "latency", ms: 4_000, times: 1 });
    const mark = dispatcher.deliveries.length;
    const menu = user.waitForText("Choose a package", { timeoutMs: 10_000 });
    user.sendText("/topup 1000001");
    await sleep(200);
    user.sendText("hello");
    await menu;
    await until(() => dispatcher.deliveries.length >= mark + 2, 5_000);
    const split = dispatcher.deliveries.slice(mark).map((delivery) => delivery.replica);
    expect(new Set(split).size).toBe(2);
    await sleep(500);
    const fromBot = stack.emulator.messages(user.chatId).filter((stored) => stored.sentByBot);
    const menuAt = fromBot.findIndex((stored) => stored.message.text?.includes("Choose a package"));
    // "hello" was answered after the menu, never in the middle of the lookup.
    expect(menuAt).toBe(1); // the customer's card, then the menu
    expect(fromBot.length).toBeGreaterThan(menuAt + 1);
    stack.sandbox.clearFaults();
  }, 30_000);

  it("SIGTERM to the replica paying: the receipt is sent, it exits 0, the other serves on", async () => {
    const user = newUser();
    await atConfirm(user);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    const { before, paying } = await confirmSlowly(user, 1_500);
    const stopping = replicas[paying] as Replica;
    stopping.bot.child.kill("SIGTERM");
    // Meanwhile another user is served (by the other replica; the stopping one says 503).
    const other = newUser();
    await expectReply(other, () => other.sendText("/topup 1000002"), "Which connection");
    await receipt;
    expect(await stopping.bot.exited).toBe(0);
    expect(stack.sandbox.topups.length).toBe(before + 1);
    stack.sandbox.clearFaults();
    // Back to two replicas.
    replicas[paying] = await startReplica(stack, dispatcher.url);
    dispatcher.replicas = replicas.map((replica) => replica.base);
  }, 60_000);

  it("SIGKILL of the replica paying: the other one finishes the purchase (default settings)", async () => {
    const user = newUser();
    await atConfirm(user);
    const { before, paying } = await confirmSlowly(user, 60_000);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 45_000 });
    const killedAt = Date.now();
    replicas[paying]?.bot.child.kill("SIGKILL");
    stack.sandbox.clearFaults();
    await receipt;
    expect(Date.now() - killedAt).toBeLessThan(45_000);
    expect(stack.sandbox.topups.length).toBe(before + 1);
    const topupCalls = stack.sandbox.requests.filter(
      (request) => request.operation === "subscription-package-topup",
    );
    expect(topupCalls.length).toBe(stack.sandbox.topups.length);
  }, 70_000);
});

describe("webhook mode, with 1,000 idle keep-alive connections on the public port", () => {
  let stack: ProcessStack;
  let replica: Replica;
  const idle: Socket[] = [];
  beforeAll(async () => {
    stack = await startProcessStack("webhook-idle", { emulator: fastWebhook });
    // Idle connections would stay a minute, and 50 fill the listener (the case): only
    // closing idle ones can make room for the webhook.
    replica = await startReplica(stack, (base) => `${base}${WEBHOOK_PATH}`, {
      HTTP_KEEP_ALIVE_SECONDS: "60",
      HTTP_MAX_CONNECTIONS: "50",
      PAYMENT_MODE: "",
      TOPUP_USER_IDS: "",
      PAYMENT_METHODS: "khalti",
      KHALTI_SECRET_KEY: "test_secret_key_idle",
      PUBLIC_URL: "http://127.0.0.1:9",
      CURRENCY: "NPR",
    });
  });
  afterAll(async () => {
    for (const socket of idle) socket.destroy();
    await stack.stop();
  });

  /** One request on a connection of its own (never a pooled one): the status line, or "". */
  async function freshRequest(port: number, request: string): Promise<string> {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => undefined);
    let received = "";
    socket.on("data", (chunk) => {
      received += String(chunk);
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(request);
    await Promise.race([until(() => received.includes("\r\n"), 10_000), closed]);
    socket.destroy();
    return received.split("\r\n")[0] ?? "";
  }

  it("still answers a webhook and a return page", async () => {
    const port = Number(new URL(replica.base).port);
    // Each makes one request, reads its answer, and stays open, idle.
    const answered = await Promise.all(
      Array.from({ length: 1_000 }, async () => {
        const socket = connect(port, "127.0.0.1");
        idle.push(socket);
        socket.on("error", () => undefined);
        let received = "";
        socket.on("data", (chunk) => {
          received += String(chunk);
        });
        await new Promise((resolve) => socket.once("connect", resolve));
        socket.write("GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n");
        await until(() => received.includes("ok") || socket.destroyed, 20_000);
        return received.includes("ok");
      }),
    );
    expect(answered.filter(Boolean).length).toBeGreaterThan(0);

    // Telegram's POST on a new connection, as its first try would come.
    const user = stack.emulator.user({ id: 6701, first_name: "Id", language_code: "en" });
    const update = JSON.stringify({
      update_id: 901_001,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: user.chatId, type: "private", first_name: "Id" },
        from: { id: user.id, is_bot: false, first_name: "Id", language_code: "en" },
        text: "/start",
        entities: [{ type: "bot_command", offset: 0, length: 6 }],
      },
    });
    const welcome = user.waitForText("Welcome");
    const posted = await freshRequest(
      port,
      `POST ${WEBHOOK_PATH} HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nX-Telegram-Bot-Api-Secret-Token: ${SECRET}\r\nContent-Length: ${Buffer.byteLength(update)}\r\n\r\n${update}`,
    );
    expect(posted).toBe("HTTP/1.1 200 OK");
    await welcome;
    // Khalti's return page (an unknown pidx: answered without asking Khalti).
    const page = await freshRequest(
      port,
      "GET /pay/khalti/return?pidx=unknown-pidx HTTP/1.1\r\nHost: bot\r\n\r\n",
    );
    expect(page).toBe("HTTP/1.1 404 Not Found");
    // Updates through the emulator are answered too.
    const mark = stack.emulator.webhookDeliveries().length;
    await expectReply(user, () => user.sendText("/help"), "/topup");
    const deliveries = () => stack.emulator.webhookDeliveries().slice(mark);
    // The delivery is recorded once its answer is in, which may be after the bot's reply.
    await until(() => deliveries().length > 0, 5_000);
    expect(deliveries().map((delivery) => delivery.status)).toEqual([200]);
    // Room was made by closing idle connections, never by refusing a request.
    const open = idle.filter((socket) => !socket.destroyed && !socket.readableEnded);
    expect(open.length).toBeLessThanOrEqual(50);
  }, 60_000);
});
