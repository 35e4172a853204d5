// PAYMENT_MODE=khalti: the subscriber pays on Khalti's web checkout (the Khalti sandbox in
// tools/), the bot believes only Khalti's lookup, and refunds through Khalti's API.
import type { Message } from "grammy/types";
import pg from "pg";
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

/** Rows of the bot's ledger. */
async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: stack.env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The ledger's payment on this pidx, with its refund. */
const paymentOn = async (pidx: string) =>
  (
    await query<{
      applied: boolean;
      refund: string;
      refunded_by: string | null;
      refund_by_hand: string | null;
      part: boolean;
    }>(
      `SELECT applied, refund, refunded_by, refund_by_hand,
              outside_refund_seen_at IS NOT NULL AS part
         FROM payments WHERE method = 'khalti' AND charge_id = $1`,
      [pidx],
    )
  )[0];

/** The purchase a pidx was offered for: its phase and why it ended. */
const purchaseOn = async (pidx: string) =>
  (
    await query<{ phase: string; reason: string | null }>(
      "SELECT p.phase, p.reason FROM purchases p JOIN payment_offers o ON o.purchase_id = p.id WHERE o.handle = $1",
      [pidx],
    )
  )[0];

/** The browser pays Khalti's page by bank, and follows Khalti back to the return page. */
async function payByBank(pidx: string, revealMobile: boolean): Promise<string> {
  const paid = await fetch(`${khalti.url}/pay/${pidx}/confirm`, {
    method: "POST",
    body: new URLSearchParams({
      paid_by: "bank",
      mobile: "9800000002",
      ...(revealMobile && { reveal_mobile: "yes" }),
    }),
    redirect: "manual",
  });
  expect(paid.status).toBe(302);
  return (await fetch(paid.headers.get("location") ?? "")).text();
}

/** The chat's words on the way to the link, per language. */
const CHAT_WORDS = {
  en: { menu: "Choose a package", renew: /Renew/, confirm: "Please confirm", link: "with Khalti" },
  ne: { menu: "किन्ने प्याकेज", renew: /नवीकरण/, confirm: "कृपया रिचार्ज", link: "खल्तीमार्फत" },
};

/** A new subscriber with a Khalti payment link for 1000001's Gold renewal in front of them. */
async function withLink(
  language: "en" | "ne" = "en",
): Promise<{ user: ChatUser; link: Message; pidx: string }> {
  const words = CHAT_WORDS[language];
  const user = stack.emulator.user({ id: ++nextUser, first_name: "Kh", language_code: language });
  await expectReply(user, () => user.sendText("/topup 1000001"), words.menu);
  await expectReply(user, () => user.press(words.renew), words.confirm);
  const link = await expectReply(user, () => user.press(/^💳/), words.link);
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

  it("the return page in the buyer's language: the package and period in words, the amount, the way back", async () => {
    const pages = {
      en: {
        rows: ["TV ••••0011", "Gold", "monthly"],
        amount: "NPR 700.00",
        back: "Back to Telegram",
      },
      ne: {
        rows: ["टिभी ••••0011", "Gold", "मासिक"],
        amount: "नेरू ७००.००",
        back: "Telegram मा फर्कनुहोस्",
      },
    };
    for (const language of ["en", "ne"] as const) {
      const { pidx } = await withLink(language);
      const answer = await fetch(`${base}/pay/khalti/return?pidx=${pidx}`);
      expect(answer.status).toBe(200);
      const html = (await answer.text()).replaceAll("\u00a0", " ");
      expect(html).toMatch(new RegExp(`^<!doctype html><html lang="${language}">`));
      const values = [...html.matchAll(/<dd>(.*?)<\/dd>/g)].map((match) => match[1]);
      expect(values).toEqual(pages[language].rows);
      expect(html).toContain(`<span class="amount-value">${pages[language].amount}</span>`);
      expect(html).not.toContain("(MONTHLY)");
      expect(html).toMatch(
        new RegExp(
          `<a class="button button-telegram" href="https://t\\.me/test_\\d+_bot">${pages[language].back}</a>`,
        ),
      );
      // Styled by the bot's own stylesheet only, which the bot serves with the pages' headers.
      expect(html).not.toMatch(/<style|style=|<script/);
      const csp = answer.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      const href = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1] ?? "";
      expect(href).toMatch(/^\/pay\/style\.css\?v=/);
      const stylesheet = await fetch(`${base}${href}`);
      expect(stylesheet.status).toBe(200);
      expect(stylesheet.headers.get("content-type")).toBe("text/css; charset=utf-8");
      expect(stylesheet.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await stylesheet.text()).toContain("prefers-color-scheme: dark");
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
    // Each press after the last check's interval (a press sooner is told to wait).
    await new Promise((resolve) => setTimeout(resolve, LOOKUP_INTERVAL_MS));
    const pending = user.waitForCallbackAnswer();
    user.press("✅ I have paid", { messageId: link.message_id });
    expect((await pending).text).toContain("still processing");
    expect(topups()).toBe(0);
    khalti.faults.clear();
    await new Promise((resolve) => setTimeout(resolve, LOOKUP_INTERVAL_MS));
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = user.waitForCallbackAnswer();
    user.press("✅ I have paid", { messageId: link.message_id });
    expect((await paid).text).toContain("confirmed");
    await receipt;
    expect(topups()).toBe(1);
  });

  it('"I have paid" tapped again and again asks Khalti once an interval; the buyer told to wait', async () => {
    const { user, link, pidx } = await withLink();
    const before = khalti.calls.lookups(pidx);
    const first = user.waitForCallbackAnswer();
    user.press("✅ I have paid", { messageId: link.message_id });
    expect((await first).text).toContain("no payment for this yet");
    const started = Date.now();
    const answers: string[] = [];
    for (let tap = 0; tap < 8; tap++) {
      const answer = user.waitForCallbackAnswer();
      user.press("✅ I have paid", { messageId: link.message_id });
      answers.push((await answer).text ?? "");
    }
    // The return page loaded meanwhile shares the interval.
    await fetch(`${base}/pay/khalti/return?pidx=${pidx}`);
    const seconds = Math.ceil((Date.now() - started) / 1_000);
    const waits = answers.filter((text) => text.includes("Please wait a few seconds"));
    expect(answers[0]).toContain("Please wait a few seconds");
    // A tap past the interval (a slow machine) asks again; nothing else does but the periodic
    // check (every second).
    const asked = answers.filter((text) => text.includes("no payment for this yet"));
    expect(waits.length + asked.length).toBe(answers.length);
    expect(khalti.calls.lookups(pidx) - before).toBeLessThanOrEqual(
      1 + asked.length + 1 + seconds + 1,
    );
    expect(waits.length).toBeGreaterThan(asked.length);
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

  it("a refund owed to a buyer who blocked the bot is made all the same, operators told once", async () => {
    const { user, pidx } = await withLink();
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alerted = admin.waitForText("cannot be messaged", { timeoutMs: 10_000 });
    user.block();
    khalti.pay(pidx);
    expect((await alerted).text).toContain(khalti.payment(pidx)?.transactionId ?? "?");
    await until(async () => khalti.payment(pidx)?.refunded === true, 10_000);
    expect(khalti.calls.refunds(khalti.payment(pidx)?.transactionId ?? "?")).toBe(1);
    expect(topups()).toBe(0);
    await until(async () => (await paymentOn(pidx))?.refund === "refunded", 5_000);
    // Told as far as it ever can be: marked, so that reconciliation stops trying.
    await until(async () => {
      const [row] = await query<{ phase: string; told: string | null }>(
        "SELECT p.phase, p.told FROM purchases p JOIN payment_offers o ON o.purchase_id = p.id WHERE o.handle = $1",
        [pidx],
      );
      return row?.phase === "refunded" && row.told === "refunded";
    }, 5_000);
    expect(admin.messages().filter((m) => m.text?.includes("cannot be messaged")).length).toBe(1);
    user.unblock();
  }, 30_000);

  it("a refund that keeps failing is retried, then left to a person with /refunds", async () => {
    const { user, pidx } = await withLink();
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    khalti.faults.refundFails(10);
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const handedOver = admin.waitForText("could not be made automatically", { timeoutMs: 15_000 });
    const refundsBefore = khalti.calls.refunds();
    khalti.pay(pidx);
    // While the bot still tries: listed apart, "do not refund by hand", and /refunded refused.
    await until(async () => khalti.calls.refunds() - refundsBefore >= 1, 8_000);
    const transaction = khalti.payment(pidx)?.transactionId ?? "";
    const trying = await expectReply(
      admin,
      () => admin.sendText("/refunds"),
      "Being refunded automatically",
    );
    expect(trying.text).toContain("do not refund by hand");
    expect(trying.text).toContain(transaction);
    expect(trying.text).not.toContain("Refunds due");
    const refused = await expectReply(
      admin,
      () => admin.sendText(`/refunded ${transaction}`),
      "Nothing recorded",
    );
    expect(refused.text).toContain("being refunded automatically through Khalti");
    expect((await paymentOn(pidx))?.refund).toBe("due");
    await handedOver;
    expect(khalti.calls.refunds() - refundsBefore).toBe(3);
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain(transaction);
    expect(listed.text).not.toContain("Being refunded automatically");
    expect(listed.text).toContain(`Khalti · Khalti transaction ${transaction}`);
    await until(
      async () => user.messages().some((m) => m.text?.includes("will be refunded")),
      3_000,
    );
  }, 30_000);

  it.each(["http-500", "drop"] as const)(
    "a refund whose answer is lost (%s) after Khalti made it: not asked again, found Refunded by the lookup, the buyer told",
    async (how) => {
      const { user, pidx } = await withLink();
      stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
      khalti.faults.refundFails(1, { afterEffect: true, how });
      const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
      const handedOver = () =>
        admin.messages().filter((m) => m.text?.includes("could not be made automatically")).length;
      const handedOverBefore = handedOver();
      const refunded = user.waitForText("was refunded", { timeoutMs: 10_000 });
      khalti.pay(pidx);
      await refunded;
      const transaction = khalti.payment(pidx)?.transactionId ?? "";
      expect(khalti.calls.refunds(transaction)).toBe(1);
      expect(khalti.payment(pidx)?.status).toBe("Refunded");
      expect(await paymentOn(pidx)).toMatchObject({
        refund: "refunded",
        refunded_by: "khalti",
        refund_by_hand: null,
      });
      expect(handedOver()).toBe(handedOverBefore);
      expect(topups()).toBe(0);
    },
  );

  it("Failed is final: the purchase ends unpaid, the buyer told, and Khalti is asked no more", async () => {
    const { user, pidx } = await withLink();
    // Another buyer's link, looked up every second: a clock for this test.
    const other = await withLink();
    const told = user.waitForText("The payment failed at Khalti", { timeoutMs: 8_000 });
    khalti.fail(pidx);
    expect((await told).text).toContain("Nothing was charged");
    expect(await purchaseOn(pidx)).toEqual({ phase: "unpaid", reason: "failed" });
    const closed = await query<{ closed: boolean }>(
      "SELECT closed_at IS NOT NULL AS closed FROM payment_offers WHERE handle = $1",
      [pidx],
    );
    expect(closed).toEqual([{ closed: true }]);
    const asked = khalti.calls.lookups(pidx);
    const ticks = khalti.calls.lookups(other.pidx);
    await until(() => khalti.calls.lookups(other.pidx) >= ticks + 3, 10_000);
    expect(khalti.calls.lookups(pidx)).toBe(asked);
    // Its return page says what Khalti said, and asks nothing more than once an interval.
    const page = await (await fetch(`${base}/pay/khalti/return?pidx=${pidx}`)).text();
    expect(page).toContain("The payment failed at Khalti. Nothing was charged.");
    expect(user.messages().filter((m) => m.text?.includes("failed at Khalti"))).toHaveLength(1);
    expect(topups()).toBe(0);
    khalti.cancel(other.pidx);
  });

  it("Partially Refunded: recorded as partial, nothing topped up, the rest left to a person (its amount unknown), all told", async () => {
    const { user, pidx } = await withLink();
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("Refund of the rest due", { timeoutMs: 8_000 });
    const owed = user.waitForText("the rest will be refunded", { timeoutMs: 8_000 });
    // Paid, and part of it given back from Khalti's dashboard before the bot looked.
    khalti.pay(pidx);
    khalti.refundOutside(pidx, { amount: 20_000 });
    const transaction = khalti.payment(pidx)?.transactionId ?? "?";
    const alerted = (await alert).text ?? "";
    expect(alerted).toContain(transaction);
    expect(alerted).toContain("Part refunded outside: refund the rest by hand");
    expect((await owed).text).toContain("part of your payment of NPR");
    expect(topups()).toBe(0);
    // The buyer is told as the payment is recorded; the purchase ends just after.
    await until(async () => (await purchaseOn(pidx))?.phase === "unpaid", 5_000);
    expect(await purchaseOn(pidx)).toEqual({ phase: "unpaid", reason: "refunded-outside" });
    expect(await paymentOn(pidx)).toMatchObject({ applied: false, part: true, refund: "due" });
    // Khalti's Partially Refunded does not say how much is left: no empty ("full") refund sent.
    expect(khalti.calls.refunds(transaction)).toBe(0);
    expect(khalti.payment(pidx)).toMatchObject({
      status: "Partially Refunded",
      refundedAmount: 20_000,
    });
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain(transaction);
    expect(listed.text).toContain("refund the rest");
    expect(
      user.messages().some((m) => /Top-up successful|Nothing was charged/.test(m.text ?? "")),
    ).toBe(false);
  });

  it("a bank-paid refund carries the complete mobile the return page gave: refunded by Khalti", async () => {
    const { user, pidx } = await withLink();
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const refunded = user.waitForText("was refunded", { timeoutMs: 15_000 });
    const page = await payByBank(pidx, true);
    expect(page).not.toMatch(/nothing was charged/i);
    await refunded;
    const transaction = khalti.payment(pidx)?.transactionId ?? "?";
    expect(khalti.payment(pidx)).toMatchObject({ status: "Refunded", paidBy: "bank" });
    // Asked without the mobile first; Khalti's field error on it; then with the payer's.
    const bodies = khalti.calls.requests
      .filter((request) => request.endpoint === "refund" && request.transactionId === transaction)
      .map((request) => request.body);
    expect(bodies).toEqual([{}, { mobile: "9800000002" }]);
    expect(topups()).toBe(0);
    await until(async () => (await paymentOn(pidx))?.refund === "refunded", 5_000);
    // Kept no longer than needed.
    expect(
      await query("SELECT 1 FROM payment_offers WHERE handle = $1 AND payer_mobile IS NOT NULL", [
        pidx,
      ]),
    ).toEqual([]);
  }, 30_000);

  it("a bank-paid refund without a complete mobile (the page masked it) goes to a person, saying why; /refunded by Khalti's transaction", async () => {
    const { user, pidx } = await withLink();
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const why = "Khalti needs the payer's mobile number for a bank-paid refund";
    const handedOver = admin.waitForText(why, { timeoutMs: 20_000 });
    const owed = user.waitForText("will be refunded", { timeoutMs: 10_000 });
    expect(await payByBank(pidx, false)).not.toMatch(/nothing was charged/i);
    await owed;
    const transaction = khalti.payment(pidx)?.transactionId ?? "?";
    expect((await handedOver).text).toContain(transaction);
    // Khalti was asked once, without a number it refused: no number was made up.
    const refunds = khalti.calls.requests.filter((request) => request.endpoint === "refund");
    expect(refunds.filter((r) => r.transactionId === transaction).map((r) => r.body)).toEqual([{}]);
    expect(khalti.payment(pidx)?.refunded).toBe(false);
    expect(await paymentOn(pidx)).toMatchObject({ refund: "due", refund_by_hand: "needs-mobile" });
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain(transaction);
    expect(listed.text).toContain(why);
    // Refunded from Khalti's dashboard; /refunded by the transaction /refunds shows.
    const told = user.waitForText("was refunded", { timeoutMs: 8_000 });
    await expectReply(
      admin,
      () => admin.sendText(`/refunded ${transaction} from the dashboard`),
      "Recorded",
    );
    await told;
    expect(await paymentOn(pidx)).toMatchObject({
      refund: "refunded",
      refunded_by: `telegram:${ADMIN}`,
    });
  }, 40_000);
});
