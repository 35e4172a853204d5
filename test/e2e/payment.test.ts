import type { Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import { BOT_TOKEN, type Stack, startStack } from "../support/stack.js";

describe.each(["strict", "foreign"] as const)("payments with a %s provider", (profile) => {
  let stack: Stack;
  let nextUser = profile === "strict" ? 5000 : 5500;
  const topupRequests = () =>
    stack.sandbox.requests.filter((r) => r.operation === "subscription-package-topup");

  beforeAll(async () => {
    stack = await startStack(
      `payment-${profile}`,
      {
        CHECKOUT_TTL_SECONDS: "3",
        CHECKOUT_SAFETY_MARGIN_SECONDS: "1",
      },
      { checkoutTtlMs: 3_000, profile },
    );
  });
  afterEach(() => stack.sandbox.reset());
  afterAll(() => stack.stop());

  /** A new user at the confirm screen of 1000001's Gold renewal. */
  async function atConfirm(): Promise<ChatUser> {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Pay", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    return user;
  }

  describe("paying exactly once", () => {
    it("two Confirm taps in one batch make one top-up, and both taps are answered", async () => {
      const user = await atConfirm();
      const receipt = user.waitForText("Top-up successful");
      const answers = stack.emulator.calls("answerCallbackQuery").length;
      user.press(/Confirm/);
      user.press(/Confirm/);
      await receipt;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stack.sandbox.topups).toHaveLength(1);
      expect(stack.emulator.calls("answerCallbackQuery").length - answers).toBe(2);
    });

    it("a duplicated update is handled once", async () => {
      const user = await atConfirm();
      let pressed: Update | undefined;
      const stopListening = stack.emulator.onEvent((event) => {
        if (event.type === "update" && event.update.callback_query) pressed = event.update;
      });
      const receipt = user.waitForText("Top-up successful");
      user.press(/Confirm/);
      stopListening();
      if (!pressed) throw new Error("the press was not seen");
      stack.emulator.injectUpdate(BOT_TOKEN, pressed);
      await receipt;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stack.sandbox.topups).toHaveLength(1);
      expect(stack.logs().some((line) => line.includes("duplicate update dropped"))).toBe(true);
    });

    it("a top-up that times out but happened ends with a receipt via txn-status", async () => {
      const user = await atConfirm();
      stack.sandbox.setFault("subscription-package-topup", {
        kind: "hang-then-succeed",
        ms: 1_500,
      });
      const checking = user.waitForText("Checking it…");
      const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
      user.press(/Confirm/);
      await checking;
      await receipt;
      expect(topupRequests()).toHaveLength(1);
      expect(stack.sandbox.topups).toHaveLength(1);
    });

    it("an unknown outcome that did not happen says nothing was charged and offers a retry", async () => {
      const user = await atConfirm();
      stack.sandbox.setFault("subscription-package-topup", { kind: "http-502", times: 1 });
      const notCharged = await expectReply(
        user,
        () => user.press(/Confirm/),
        "Nothing was charged",
        8_000,
      );
      expect(buttonsOf(user, notCharged)).toEqual(["Try again"]);
      expect(stack.sandbox.topups).toHaveLength(0);
      await expectReply(user, () => user.press("Try again"), "Choose a package");
      await expectReply(user, () => user.press(/Renew/), "Please confirm");
      await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      expect(stack.sandbox.topups).toHaveLength(1);
    });

    it("an expired token is replaced without the user noticing", async () => {
      const user = await atConfirm();
      const issued = stack.sandbox.requests.filter(
        (r) => r.operation === "get-subscription-package",
      );
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      const listings = stack.sandbox.requests.filter(
        (r) => r.operation === "get-subscription-package",
      );
      // One listing for a fresh token, one for the receipt's new end date.
      expect(listings.length).toBe(issued.length + 2);
      expect(topupRequests()).toHaveLength(1);
      expect(user.messages().some((m) => m.text?.includes("Please confirm again"))).toBe(false);
    });

    it("a token refused by the provider is replaced once, after checking nothing happened", async () => {
      const user = await atConfirm();
      stack.sandbox.setFault("subscription-package-topup", {
        kind: "reject",
        code: "CHECKOUT_TOKEN_INVALID",
        times: 1,
      });
      await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      expect(topupRequests()).toHaveLength(2);
      expect(stack.sandbox.topups).toHaveLength(1);
    });

    it("a second refusal is a decline, explained with the provider's code", async () => {
      const user = await atConfirm();
      stack.sandbox.setFault("subscription-package-topup", {
        kind: "reject",
        code: "LIMIT_REACHED",
      });
      await expectReply(user, () => user.press(/Confirm/), "code LIMIT_REACHED");
      expect(topupRequests()).toHaveLength(2);
      expect(stack.sandbox.topups).toHaveLength(0);
    });

    it("a changed price is shown and asked again", async () => {
      const user = await atConfirm();
      stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
      stack.sandbox.setFault("get-subscription-package", {
        kind: "transform",
        transform: (response) => {
          const body = response.body as { tv: { bouquets: { code: string; price: number }[] } };
          for (const b of body.tv.bouquets) if (b.code === "TV-GOLD-M") b.price = 999;
          return response;
        },
      });
      const again = await expectReply(
        user,
        () => user.press(/Confirm/),
        "price of this package has changed",
      );
      expect(again.text).toMatch(/from NPR\s700\.00 to NPR\s999\.00/);
      expect(again.text).toMatch(/Price: NPR\s999\.00/);
      expect(buttonsOf(user, again)).toContain("✅ Confirm and pay");
      expect(stack.sandbox.topups).toHaveLength(0);
      // The new screen belongs to a live journey: Back works on it.
      await expectReply(
        user,
        () => user.press("Back", { messageId: again.message_id }),
        "Choose a package",
      );
    });
  });

  describe("when something is down", () => {
    it("the provider down at lookup: an apology, and the bot carries on", async () => {
      const user = stack.emulator.user({ id: ++nextUser, first_name: "Dn", language_code: "en" });
      stack.sandbox.setFault("get-customer-information", { kind: "http-500" });
      await expectReply(user, () => user.sendText("/topup 1000001"), "not available right now");
      stack.sandbox.clearFaults();
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    });

    it("a refused provider token: users are told top-ups are paused, one loud log line", async () => {
      const user = stack.emulator.user({ id: ++nextUser, first_name: "Au", language_code: "en" });
      stack.sandbox.setFault("get-customer-information", { kind: "http-401" });
      await expectReply(user, () => user.sendText("/topup 1000001"), "Top-ups are paused");
      await expectReply(user, () => user.sendText("/topup 1000001"), "Top-ups are paused");
      const loud = stack
        .logs()
        .filter((l) => l.includes("check PROVIDER_TOKEN") && l.includes('"level":50'));
      expect(loud).toHaveLength(1);
      expect(stack.logs().join("\n")).not.toContain("e2e-provider-token");
      stack.sandbox.clearFaults();
      // One probe call after PROVIDER_PROBE_SECONDS finds the token accepted again.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    });

    it("Telegram failing with 502 and 429 is retried, and the user still gets the receipt", async () => {
      const user = await atConfirm();
      stack.emulator.failNext("sendMessage", { error_code: 502, description: "Bad Gateway" }, 1);
      stack.emulator.failNext(
        "sendMessage",
        {
          error_code: 429,
          description: "Too Many Requests: retry after 1",
          parameters: { retry_after: 1 },
        },
        1,
      );
      await expectReply(user, () => user.press(/Confirm/), "Top-up successful", 8_000);
      expect(stack.sandbox.topups).toHaveLength(1);
    });
  });
});

describe("when Telegram is down after the top-up", () => {
  let quick: Stack;
  beforeAll(async () => {
    quick = await startStack("telegram-down", {
      TELEGRAM_RETRY_ATTEMPTS: "0",
      RECONCILE_INTERVAL_SECONDS: "1",
    });
  });
  afterAll(() => quick.stop());

  it("a failing Telegram call inside the conversation does not leave the chat stuck", async () => {
    const user = quick.emulator.user({ id: 5901, first_name: "St", language_code: "en" });
    quick.emulator.failNext(
      "sendMessage",
      { error_code: 500, description: "Internal Server Error" },
      1,
    );
    await expectReply(user, () => user.sendText("/topup"), "something went wrong");
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    await expectReply(user, () => user.sendText("1000001"), "Choose a package");
  });

  it("the receipt still arrives, through reconciliation", async () => {
    const user = quick.emulator.user({ id: 5900, first_name: "Td", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    // Once "Processing…" is shown, Telegram fails: neither the receipt in its place nor a new
    // message gets through at first.
    quick.sandbox.setFault("subscription-package-topup", { kind: "latency", ms: 500 });
    await expectReply(user, () => user.press(/Confirm/), "Processing your top-up");
    const down = { error_code: 500, description: "Internal Server Error" };
    quick.emulator.failNext("editMessageText", down, 1);
    quick.emulator.failNext("sendMessage", down, 1);
    await user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    expect(quick.sandbox.topups).toHaveLength(1);
    const failed = quick.emulator
      .calls("sendMessage")
      .filter((call) => !call.response.ok && call.payload.chat_id === user.chatId);
    expect(failed).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quick.logs().some((line) => line.includes("reconciliation finished purchases"))).toBe(
      true,
    );
  });
});
