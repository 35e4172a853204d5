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

/** A new user at the confirm screen of 1000001's Gold renewal. */
async function atConfirm(language_code = "en"): Promise<ChatUser> {
  const user = newUser(language_code);
  await expectReply(user, () => user.sendText("/topup 1000001"), /Choose a package|छान्नुहोस्/);
  await expectReply(user, () => user.press(/Renew|नवीकरण/), /Please confirm|पुष्टि/);
  return user;
}

/** Nobody paid in the bot (PAYMENT_MODE=none): no text may speak of a payment. */
const PAYMENT_WORDS = /payment|paid|भुक्तानी|तिर्/i;

describe("the provider refusing our token on a top-up, where nobody paid", () => {
  const topupCalls = () =>
    stack.sandbox.requests.filter((r) => r.operation === "subscription-package-topup").length;

  it("with its own envelope: nothing happened, and the agent is told so at once", async () => {
    const user = await atConfirm();
    const before = topupCalls();
    stack.sandbox.setFault("subscription-package-topup", { kind: "http-401" });
    const told = await expectReply(user, () => user.press(/Confirm/), "Top-ups are paused");
    expect(told.text).toContain("Nothing was charged");
    expect(topupCalls()).toBe(before + 1);
    expect(stack.sandbox.topups).toHaveLength(0);
    const said = botTexts(user.chatId);
    expect(said.filter((text) => /Checking|confirm this top-up/.test(text))).toEqual([]);
    expect(said.filter((text) => PAYMENT_WORDS.test(text))).toEqual([]);
    await recover();
  });

  it("in Nepali too", async () => {
    const user = await atConfirm("ne");
    stack.sandbox.setFault("subscription-package-topup", { kind: "http-401" });
    const told = await expectReply(user, () => user.press(/पुष्टि/), "रिचार्ज अहिलेलाई रोकिएको छ");
    expect(told.text).toContain("कुनै रकम काटिएको छैन");
    expect(botTexts(user.chatId).filter((text) => PAYMENT_WORDS.test(text))).toEqual([]);
    await recover();
  });

  it("without it (a gateway's page): the outcome stays unknown, still without a word of a payment", async () => {
    const user = await atConfirm();
    stack.sandbox.setFault("subscription-package-topup", {
      kind: "reject",
      code: "",
      status: 401,
      html: true,
    });
    const checking = user.waitForText("Checking it…");
    const unknown = user.waitForText("confirm this top-up yet", { timeoutMs: 8_000 });
    user.press(/Confirm/);
    await checking;
    await unknown;
    const said = botTexts(user.chatId);
    expect(said.filter((text) => /Nothing was charged|paused/.test(text))).toEqual([]);
    expect(said.filter((text) => PAYMENT_WORDS.test(text))).toEqual([]);
    await recover();
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

describe("the provider refusing our token on a paid top-up", () => {
  let paid: Stack;
  beforeAll(async () => {
    paid = await startStack(
      "provider-health-paid",
      {
        PAYMENT_MODE: "telegram",
        PAYMENT_PROVIDER_TOKEN: "284685063:TEST:e2e",
        CURRENCY: "NPR",
        PROVIDER_READ_RETRIES: "0",
      },
      {},
      { preCheckoutTimeoutMs: 5_000 },
    );
  });
  afterAll(() => paid.stop());

  it("with its envelope: the buyer is told at once that top-ups are paused and the payment is safe, then topped up", async () => {
    const buyer = paid.emulator.user({ id: 8290, first_name: "Kh", language_code: "ne" });
    await expectReply(buyer, () => buyer.sendText("/topup 1000001"), "छान्नुहोस्");
    await expectReply(buyer, () => buyer.press(/नवीकरण/), "पुष्टि");
    const invoice = buyer.waitForMessage((message) => message.invoice !== undefined);
    buyer.press(/तिर्नुहोस्/);
    const { message_id } = await invoice;
    paid.sandbox.setFault("subscription-package-topup", { kind: "http-401" });
    const paused = buyer.waitForText("रिचार्ज अहिलेलाई रोकिएको छ", { timeoutMs: 5_000 });
    expect((await buyer.pay(message_id)).kind).toBe("paid");
    const told = await paused;
    expect(told.text).toContain("तपाईंको भुक्तानी सुरक्षित छ");
    expect(told.text).not.toContain("कुनै रकम काटिएको छैन");
    expect(paid.sandbox.topups).toHaveLength(0);

    // The token is taken again: the next try is the circuit's probe, and it tops up once.
    const receipt = buyer.waitForText("रिचार्ज सफल भयो", { timeoutMs: 10_000 });
    paid.sandbox.clearFaults();
    await receipt;
    expect(paid.sandbox.topups).toHaveLength(1);
    const said = paid.emulator
      .messages(buyer.chatId)
      .filter((stored) => stored.sentByBot)
      .map((stored) => stored.message.text ?? "");
    expect(said.filter((text) => text.includes("रोकिएको"))).toHaveLength(1);
  });
});
