// The emulator's webhook mode against a plain node:http receiver.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTelegramEmulator,
  type TelegramEmulator,
} from "../../tools/telegram-emulator/index.js";

const TOKEN = "777:webhook-test";

interface Received {
  body: { update_id: number; message?: { text?: string } };
  secret: string | undefined;
}

async function receiver(answer: (count: number) => number | "hang") {
  const received: Received[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        body: JSON.parse(Buffer.concat(chunks).toString()),
        secret: request.headers["x-telegram-bot-api-secret-token"] as string | undefined,
      });
      const status = answer(received.length);
      if (status !== "hang") response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { received, url, close };
}

async function call(emulator: TelegramEmulator, method: string, params: object = {}) {
  const response = await fetch(`${emulator.apiRoot}/bot${TOKEN}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  return (await response.json()) as {
    ok: boolean;
    result?: unknown;
    error_code?: number;
    description?: string;
  };
}

async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(10);
  }
}

describe("the emulator's webhooks", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function setUp(answer: (count: number) => number | "hang") {
    const emulator = await createTelegramEmulator({
      bots: [{ token: TOKEN }],
      webhook: { timeoutMs: 200, retryDelayMs: 20, maxAttempts: 3 },
    });
    const hook = await receiver(answer);
    cleanups.push(
      () => emulator.close(),
      () => hook.close(),
    );
    return { emulator, hook };
  }

  it("posts a user's message with the secret; getUpdates is refused until deleteWebhook", async () => {
    const { emulator, hook } = await setUp(() => 200);
    const set = await call(emulator, "setWebhook", { url: hook.url, secret_token: "s_1-A" });
    expect(set.ok).toBe(true);
    emulator.user({ id: 10, first_name: "U" }).sendText("hello");
    await until(() => hook.received.length === 1);
    // The emulator settles a delivery once it has read the answer, a moment after the POST.
    await until(() => emulator.webhookDeliveries().length === 1);
    expect(hook.received[0]?.secret).toBe("s_1-A");
    expect(hook.received[0]?.body.message?.text).toBe("hello");
    const refused = await call(emulator, "getUpdates");
    expect(refused).toMatchObject({ ok: false, error_code: 409 });
    expect(refused.description).toContain("webhook is active");
    expect(emulator.webhookInfo()).toMatchObject({ url: hook.url, pending_update_count: 0 });
    expect((await call(emulator, "deleteWebhook")).ok).toBe(true);
    expect((await call(emulator, "getUpdates")).ok).toBe(true);
    expect(emulator.webhookInfo().url).toBe("");
  });

  it("retries an update answered 500, with the same update_id, and says why", async () => {
    const { emulator, hook } = await setUp((count) => (count === 1 ? 500 : 200));
    await call(emulator, "setWebhook", { url: hook.url });
    emulator.user({ id: 11, first_name: "U" }).sendText("again");
    await until(() => hook.received.length === 2);
    await until(() => emulator.webhookDeliveries().length === 2);
    expect(hook.received[0]?.body.update_id).toBe(hook.received[1]?.body.update_id);
    const attempts = emulator.webhookDeliveries().map((d) => [d.attempt, d.status]);
    expect(attempts).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(emulator.webhookInfo().last_error_message).toBe(
      "Wrong response from the webhook: 500 Internal Server Error",
    );
  });

  it("retries an update nobody answers in time, then gives up after the last attempt", async () => {
    const { emulator, hook } = await setUp(() => "hang");
    await call(emulator, "setWebhook", { url: hook.url });
    emulator.user({ id: 12, first_name: "U" }).sendText("anyone?");
    await until(() => emulator.webhookDeliveries().length === 3);
    expect(emulator.webhookDeliveries().every((d) => d.status === undefined)).toBe(true);
    expect(emulator.webhookInfo()).toMatchObject({
      last_error_message: "Read timeout expired",
      pending_update_count: 0,
    });
  });

  it("posts one update of a chat at a time, other chats meanwhile", async () => {
    const { emulator, hook } = await setUp(() => 200);
    await call(emulator, "setWebhook", { url: hook.url });
    const first = emulator.user({ id: 13, first_name: "A" });
    const second = emulator.user({ id: 14, first_name: "B" });
    first.sendText("one");
    first.sendText("two");
    second.sendText("three");
    await until(() => hook.received.length === 3);
    // "two" waited for the answer to "one"; "three", of another chat, did not wait for "two".
    const texts = hook.received.map((r) => r.body.message?.text);
    expect(texts.indexOf("one")).toBeLessThan(texts.indexOf("two"));
    expect(texts.indexOf("three")).toBeLessThan(texts.indexOf("two"));
  });

  it("refuses a secret Telegram would refuse", async () => {
    const { emulator, hook } = await setUp(() => 200);
    const refused = await call(emulator, "setWebhook", { url: hook.url, secret_token: "a b" });
    expect(refused).toMatchObject({ ok: false, error_code: 400 });
    expect(emulator.webhookInfo().url).toBe("");
  });
});
