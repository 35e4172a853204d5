// The provider refusing our token or not answering: users are told what is true at once,
// operators are alerted once in their language and told when it recovers, and a slow
// provider shows "typing…" and never holds up /cancel.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { type Stack, startStack } from "../support/stack.js";

const ADMIN = 8100;
const GROUP = -100_810;
let stack: Stack;
let admin: ChatUser;
let nextUser = 8200;
const lookups = () =>
  stack.sandbox.requests.filter((r) => r.operation === "get-customer-information").length;
const newUser = (language_code = "en") =>
  stack.emulator.user({ id: ++nextUser, first_name: "Hu", language_code });
const botTexts = (chatId: number) =>
  stack.emulator
    .messages(chatId)
    .filter((m) => m.sentByBot)
    .map((m) => m.message.text ?? "");

beforeAll(async () => {
  stack = await startStack("provider-health", {
    ADMIN_USER_IDS: String(ADMIN),
    SUPPORT_CHAT_IDS: String(GROUP),
    PROVIDER_ALERT_AFTER: "2",
    PROVIDER_PROBE_SECONDS: "1",
    PROVIDER_READ_RETRIES: "0",
    PROVIDER_TIMEOUT_MS: "5000",
  });
  stack.emulator.group({ id: GROUP, title: "Support desk", type: "supergroup" });
  // The admin's Telegram is in Nepali: alerts reach them in Nepali.
  admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "ne" });
  await expectReply(admin, () => admin.sendText("/start"), "");
});
afterEach(() => stack.sandbox.clearFaults());
afterAll(() => stack.stop());

async function recover(): Promise<void> {
  stack.sandbox.clearFaults();
  await sleep(1_100);
  const user = newUser();
  await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
}

describe("the provider refusing our token", () => {
  it("pauses top-ups at once, alerts the operators once, and tells them when it is over", async () => {
    stack.sandbox.setFault("get-customer-information", { kind: "http-401" });
    const alert = admin.waitForText("टोकन अस्वीकार", { timeoutMs: 3_000 });
    const first = newUser();
    await expectReply(first, () => first.sendText("/topup 1000001"), "Top-ups are paused");
    const before = lookups();
    const second = newUser("ne");
    const started = Date.now();
    await expectReply(second, () => second.sendText("/topup 1000001"), "रिचार्ज अहिलेलाई रोकिएको छ");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(lookups()).toBe(before);

    expect((await alert).text).toContain("PROVIDER_TOKEN");
    expect(botTexts(GROUP).filter((t) => t.includes("refuses our token"))).toHaveLength(1);

    const recovered = admin.waitForText("फेरि जवाफ दिन थाल्यो");
    await recover();
    await recovered;
    expect(botTexts(ADMIN).filter((t) => t.includes("टोकन अस्वीकार"))).toHaveLength(1);
    expect(botTexts(GROUP).filter((t) => t.includes("answers again"))).toHaveLength(1);
  });
});

describe("the provider not answering", () => {
  it("after PROVIDER_ALERT_AFTER failures, answers /topup at once and alerts once", async () => {
    stack.sandbox.setFault("get-customer-information", { kind: "http-500" });
    const alert = admin.waitForText("जवाफ दिइरहेको छैन", { timeoutMs: 3_000 });
    for (let i = 0; i < 2; i++) {
      const user = newUser();
      await expectReply(user, () => user.sendText("/topup 1000001"), "not available right now");
    }
    const before = lookups();
    const user = newUser();
    const started = Date.now();
    await expectReply(user, () => user.sendText("/topup 1000001"), "not available right now");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(lookups()).toBe(before);
    await alert;
    expect(botTexts(GROUP).filter((t) => t.includes("not answering"))).toHaveLength(1);
    const recovered = admin.waitForText("फेरि जवाफ दिन थाल्यो", { timeoutMs: 3_000 });
    await recover();
    await recovered;
  });
});

describe("a slow provider", () => {
  it("shows typing… while a lookup takes more than a second", async () => {
    stack.sandbox.setFault("get-customer-information", { kind: "latency", ms: 1_600 });
    const user = newUser();
    const typing = new Promise<void>((resolve) => {
      const stop = stack.emulator.onEvent((event) => {
        if (event.type === "chat-action" && event.chatId === user.chatId) {
          expect(event.action).toBe("typing");
          stop();
          resolve();
        }
      });
    });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await typing;
  });

  it("answers /cancel at once while a lookup is pending, and drops the late result", async () => {
    stack.sandbox.setFault("get-customer-information", { kind: "latency", ms: 2_500 });
    const user = newUser();
    user.sendText("/topup 1000001");
    await sleep(300);
    const started = Date.now();
    await expectReply(user, () => user.sendText("/cancel"), "Cancelled");
    expect(Date.now() - started).toBeLessThan(1_000);
    await sleep(2_800);
    expect(botTexts(user.chatId).some((text) => text.includes("R••• T•••"))).toBe(false);
    stack.sandbox.clearFaults();
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
  });
});
