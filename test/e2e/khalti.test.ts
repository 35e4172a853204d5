// PAYMENT_MODE=khalti: the subscriber pays on Khalti's web checkout (the Khalti sandbox in
// tools/), the bot believes only Khalti's lookup, and refunds through Khalti's API.
import type { Message } from "grammy/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { freePort } from "../support/ports.js";
import { type Stack, startStack } from "../support/stack.js";
import { until } from "../support/wait.js";

const SECRET = "khalti-e2e-secret";
/** The return page looks a payment up at most once this long. */
const LOOKUP_INTERVAL_MS = 1_000;
const ADMIN = 9301;
let stack: Stack;
let khalti: KhaltiSandbox;
let base: string;
let nextUser = 9400;

beforeAll(async () => {
  khalti = await createKhaltiSandbox({ secretKey: SECRET });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stack = await startStack("khalti", {
    PAYMENT_MODE: "khalti",
    KHALTI_SECRET_KEY: SECRET,
    KHALTI_BASE_URL: khalti.url,
    PUBLIC_URL: base,
    HTTP_PORT: String(port),
    HTTP_HOST: "127.0.0.1",
    PAYMENT_CHECK_SECONDS: "1",
    ADMIN_USER_IDS: String(ADMIN),
    RETURN_PAGE_LOOKUP_MS: String(LOOKUP_INTERVAL_MS),
    // Every test's page hits come from 127.0.0.1: the per-client limit is the unit test's.
    RETURN_PAGE_LIMIT: "100000",
  });
});
afterEach(() => {
  stack.sandbox.reset();
  khalti.faults.clear();
});
afterAll(async () => {
  await stack.stop();
  await khalti.close();
});

const topups = () => stack.sandbox.topups.length;

/** A new subscriber with a Khalti payment link for 1000001's Gold renewal in front of them. */
async function withLink(): Promise<{ user: ChatUser; link: Message; pidx: string }> {
  const user = stack.emulator.user({ id: ++nextUser, first_name: "Kh", language_code: "en" });
  await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
  await expectReply(user, () => user.press(/Renew/), "Please confirm");
  const link = await expectReply(user, () => user.press(/Pay NPR/), "with Khalti");
  const pidx = khalti.payments().at(-1)?.pidx ?? "";
  return { user, link, pidx };
}

describe("paying with Khalti", () => {
  it("PAYMENT_MODE=khalti still means PAYMENT_METHODS=khalti, with a deprecation line at start", () => {
    const deprecation = stack.logs().filter((line) => line.includes("PAYMENT_MODE is deprecated"));
    expect(deprecation).toHaveLength(1);
    expect(deprecation[0]).toContain('"level":40');
  });

  it("initiates in paisa with no personal data, and tops up once Khalti's lookup says Completed", async () => {
    const { user, link, pidx } = await withLink();
    expect(buttonsOf(user, link)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Pay NPR.*with Khalti/),
        "✅ I have paid",
        "Cancel",
      ]),
    );
    const sent = khalti.payment(pidx)?.initiatedWith ?? {};
    expect(sent.amount).toBe(70_000);
    expect(sent.return_url).toBe(`${base}/pay/khalti/return`);
    expect(sent).not.toHaveProperty("customer_info");
    expect(JSON.stringify(sent)).not.toMatch(/98\d{8}|Ram|Thapa/);
    // The buyer pays and never comes back to the return page: the bot looks it up.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    khalti.pay(pidx);
    expect((await receipt).text).toContain("with Khalti");
    expect(topups()).toBe(1);
    // /history names the method and the reference Khalti's statement shows.
    const transaction = khalti.payment(pidx)?.transactionId ?? "?";
    const history = await expectReply(user, () => user.sendText("/history"), "Your last top-up");
    expect(history.text).toContain(`Payment: Khalti · reference ${transaction}`);
  });

  it("tells a buyer who does not come back that Khalti holds the payment (Pending), once", async () => {
    const { user, pidx } = await withLink();
    khalti.faults.lookupPending(pidx);
    khalti.pay(pidx);
    await user.waitForText("still processing", { timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // more lookups: said once
    expect(user.messages().filter((m) => m.text?.includes("still processing"))).toHaveLength(1);
    expect(topups()).toBe(0);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    khalti.faults.clear();
    await receipt;
    expect(topups()).toBe(1);
  });

  it("keeps looking up while Khalti's lookup fails, and tops up once it answers", async () => {
    const { user, pidx } = await withLink();
    khalti.faults.lookupFails(3, "drop");
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    khalti.pay(pidx);
    await receipt;
    expect(khalti.calls.lookups(pidx)).toBeGreaterThanOrEqual(2);
    expect(topups()).toBe(1);
  });

  it("never trusts the return page's query: an unknown pidx is a 404 with no call to Khalti", async () => {
    const before = khalti.calls.requests.length;
    const forged = await fetch(
      `${base}/pay/khalti/return?pidx=forged&status=Completed&amount=70000`,
    );
    expect(forged.status).toBe(404);
    expect(khalti.calls.requests.length).toBe(before);

    const { user, pidx } = await withLink();
    // "Completed" in the query of a payment not made: the lookup says otherwise.
    const notPaid = await fetch(`${base}/pay/khalti/return?pidx=${pidx}&status=Completed`);
    expect(notPaid.status).toBe(200);
    expect(await notPaid.text()).toContain("has not confirmed a payment");
    expect(topups()).toBe(0);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    khalti.pay(pidx);
    // Past the return page's interval: the next hit looks it up again.
    await new Promise((resolve) => setTimeout(resolve, LOOKUP_INTERVAL_MS));
    const paid = await fetch(`${base}/pay/khalti/return?pidx=${pidx}`);
    expect(await paid.text()).toContain("Payment received");
    await receipt;
    expect(topups()).toBe(1);
  });

  it("200 hits on the return page: a handful of lookups at Khalti, each answer with its headers", async () => {
    const { pidx } = await withLink();
    const before = khalti.calls.lookups(pidx);
    const started = Date.now();
    const answers: Response[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const hits = Array.from({ length: 20 }, () =>
        fetch(`${base}/pay/khalti/return?pidx=${pidx}`),
      );
      answers.push(...(await Promise.all(hits)));
    }
    const seconds = (Date.now() - started) / 1000;
    // One per interval from the page, one a second from the periodic check (PAYMENT_CHECK_SECONDS).
    expect(khalti.calls.lookups(pidx) - before).toBeLessThanOrEqual(2 + 2 * Math.ceil(seconds));
    expect(khalti.calls.lookups(pidx) - before).toBeLessThan(20);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain("has not confirmed a payment");
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
  });

  it('"I have paid" pressed by someone else than the buyer looks nothing up', async () => {
    const { user, link, pidx } = await withLink();
    const check = link.reply_markup?.inline_keyboard
      .flat()
      .find((button) => button.text === "✅ I have paid");
    const data = check && "callback_data" in check ? check.callback_data : "";
    const other = stack.emulator.user({ id: ++nextUser, first_name: "Ot", language_code: "en" });
    const own = await expectReply(other, () => other.sendText("/start"), /./);
    const before = khalti.calls.lookups(pidx);
    const answer = other.waitForCallbackAnswer();
    other.pressData(data ?? "", own.message_id);
    expect((await answer).text).toContain("someone else’s");
    // Its own press is answered from a lookup; the other's made none (the periodic check aside).
    const mine = user.waitForCallbackAnswer();
    user.press("✅ I have paid", { messageId: link.message_id });
    expect((await mine).text).toContain("no payment for this yet");
    expect(khalti.calls.lookups(pidx) - before).toBeLessThanOrEqual(2);
  });

  it('"I have paid" looks it up now', async () => {
    const { user, link, pidx } = await withLink();
    const early = user.waitForCallbackAnswer();
    user.press("✅ I have paid", { messageId: link.message_id });
    expect((await early).text).toContain("no payment for this yet");
    khalti.faults.lookupPending(pidx);
    khalti.pay(pidx);
    const pending = user.waitForCallbackAnswer();
    user.press("✅ I have paid", { messageId: link.message_id });
    expect((await pending).text).toContain("still processing");
    expect(topups()).toBe(0);
    khalti.faults.clear();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = user.waitForCallbackAnswer();
    user.press("✅ I have paid", { messageId: link.message_id });
    expect((await paid).text).toContain("confirmed");
    await receipt;
    expect(topups()).toBe(1);
  });

  it("a cancelled or expired payment ends the purchase: nothing charged", async () => {
    const first = await withLink();
    const cancelled = first.user.waitForText("Payment cancelled", { timeoutMs: 8_000 });
    khalti.cancel(first.pidx);
    await cancelled;
    const second = await withLink();
    const expired = second.user.waitForText("not paid in time", { timeoutMs: 8_000 });
    khalti.expire(second.pidx);
    await expired;
    expect(topups()).toBe(0);
    expect((await purchasesOf(stack.env.DATABASE_URL ?? "", second.user.id)).at(-1)?.phase).toBe(
      "unpaid",
    );
  });

  it("a wrong amount is not topped up: operators alerted, refunded through Khalti", async () => {
    const { user, pidx } = await withLink();
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("pays for nothing", { timeoutMs: 8_000 });
    const refunded = user.waitForText("was refunded", { timeoutMs: 8_000 });
    khalti.pay(pidx, { amount: 50_000 });
    await alert;
    await refunded;
    expect(topups()).toBe(0);
    expect(khalti.payment(pidx)?.refunded).toBe(true);
    expect(khalti.calls.refunds()).toBe(1);
  });

  it("refunds through Khalti, once, when the provider refuses after payment", async () => {
    const { user, pidx } = await withLink();
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const owed = user.waitForText("will be refunded", { timeoutMs: 8_000 });
    const refunded = user.waitForText("was refunded", { timeoutMs: 8_000 });
    khalti.pay(pidx);
    await owed;
    await refunded;
    expect(topups()).toBe(0);
    expect(khalti.calls.refunds()).toBeGreaterThanOrEqual(1);
    expect(khalti.payment(pidx)?.refunded).toBe(true);
  });

  it("a refund that keeps failing is retried, then left to a person with /refunds", async () => {
    const { user, pidx } = await withLink();
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    khalti.faults.refundFails(10);
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const handedOver = admin.waitForText("could not be made automatically", { timeoutMs: 15_000 });
    const refundsBefore = khalti.calls.refunds();
    khalti.pay(pidx);
    await handedOver;
    expect(khalti.calls.refunds() - refundsBefore).toBe(3);
    const transaction = khalti.payment(pidx)?.transactionId ?? "";
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain(transaction);
    expect(listed.text).toContain(`Khalti · Khalti transaction ${transaction}`);
    await until(
      async () => user.messages().some((m) => m.text?.includes("will be refunded")),
      3_000,
    );
  }, 30_000);
});
