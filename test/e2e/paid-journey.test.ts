// PAYMENT_MODE=telegram: the subscriber pays with Telegram Payments before the provider tops
// up. The emulator takes the payment as Telegram does (invoice, pre-checkout query answered
// within its timeout, successful_payment); the ledger is a PostgreSQL database of the test's own.
import type { Message, Update } from "grammy/types";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { rewriteListing } from "../support/listing.js";
import { BOT_TOKEN, type Stack, startStack } from "../support/stack.js";
import { until } from "../support/wait.js";

const ADMIN = 9101;
const SUPPORT_GROUP = -100_9101;
let stack: Stack;
let nextUser = 9200;

beforeAll(async () => {
  stack = await startStack(
    "paid_journey",
    {
      PAYMENT_MODE: "telegram",
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:e2e",
      CURRENCY: "NPR",
      PAYMENT_WINDOW_SECONDS: "3",
      // A 3 s window: taken to its end and ended at once (the margins: telegram-window.test.ts).
      PAYMENT_CLOSING_SECONDS: "0",
      TELEGRAM_PAYMENT_GRACE_SECONDS: "0",
      ADMIN_USER_IDS: String(ADMIN),
      SUPPORT_CHAT_IDS: String(SUPPORT_GROUP),
      CHECKOUT_TTL_SECONDS: "3",
      CHECKOUT_SAFETY_MARGIN_SECONDS: "1",
    },
    { checkoutTtlMs: 3_000 },
    { preCheckoutTimeoutMs: 3_000 },
  );
});
afterEach(() => stack.sandbox.reset());
afterAll(() => stack.stop());

const topups = () => stack.sandbox.topups.length;
const isInvoice = (message: Message) => message.invoice !== undefined;

/** A new subscriber with an invoice for 1000001's Gold renewal in front of them. */
async function withInvoice(): Promise<{ user: ChatUser; invoice: Message }> {
  const user = stack.emulator.user({ id: ++nextUser, first_name: "Pay", language_code: "en" });
  await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
  const confirm = await expectReply(user, () => user.press(/Renew/), "Please confirm");
  expect(buttonsOf(user, confirm).some((label) => /💳 Pay NPR/.test(label))).toBe(true);
  const invoice = user.waitForMessage(isInvoice);
  user.press(/Pay NPR/);
  return { user, invoice: await invoice };
}

/** How the bot answered a pre-checkout query (an injected one's answer is only in the calls). */
async function preCheckoutAnswer(queryId: string) {
  const answer = () =>
    stack.emulator
      .calls("answerPreCheckoutQuery")
      .find((call) => call.payload.pre_checkout_query_id === queryId)?.payload;
  await until(() => answer() !== undefined, 3_000);
  const found = answer() ?? {};
  return {
    ok: found.ok === true || found.ok === "true",
    errorMessage: String(found.error_message ?? ""),
  };
}

describe("paying with Telegram Payments", () => {
  it("sends an invoice within Telegram's limits, tops up once paid, and names the payment", async () => {
    const { user, invoice } = await withInvoice();
    expect(invoice.invoice?.currency).toBe("NPR");
    // Price in minor units, an integer: 700.00 → 70000 (whatever the bouquet's price is).
    expect(Number.isInteger(invoice.invoice?.total_amount)).toBe(true);
    expect([...(invoice.invoice?.title ?? "")].length).toBeLessThanOrEqual(32);
    // Found by a code typed: the invoice masks the connection, as the summary above it does.
    expect(invoice.invoice?.description).toContain("TV ••••0011");
    expect(invoice.invoice?.description).not.toContain("8000000011");
    expect(topups()).toBe(0);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = await user.pay(invoice.message_id, { providerChargeId: "prov-charge-1" });
    expect(paid.kind).toBe("paid");
    const told = await receipt;
    expect(told.text).toContain("Paid:");
    expect(told.text).toContain("prov-charge-1");
    expect(topups()).toBe(1);
    // Exactly the price paid.
    const sent = stack.sandbox.topups[0] as unknown as Record<string, unknown>;
    expect(JSON.stringify(sent)).toContain(String((invoice.invoice?.total_amount ?? 0) / 100));
  });

  it("tops up once when the same successful_payment arrives twice, even under a new update id", async () => {
    const { user, invoice } = await withInvoice();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = await user.pay(invoice.message_id);
    if (paid.kind !== "paid" || !paid.update) throw new Error("not paid");
    await receipt;
    const again: Update = paid.update;
    stack.emulator.injectUpdate(BOT_TOKEN, again);
    stack.emulator.injectUpdate(BOT_TOKEN, { ...again, update_id: again.update_id + 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(topups()).toBe(1);
    const receipts = user.messages().filter((m) => m.text?.includes("Top-up successful"));
    expect(receipts).toHaveLength(1);
  });

  it("refuses to take a payment for an invoice already paid", async () => {
    const { user, invoice } = await withInvoice();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    await user.pay(invoice.message_id);
    await receipt;
    const second = await user.pay(invoice.message_id, { again: true });
    expect(second.kind).toBe("refused");
    if (second.kind === "refused") expect(second.errorMessage).toContain("already paid");
    expect(topups()).toBe(1);
  });

  it("owes back a second, different payment for a paid purchase: buyer and operators told", async () => {
    const { user, invoice } = await withInvoice();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = await user.pay(invoice.message_id);
    if (paid.kind !== "paid" || !paid.update?.message?.successful_payment) throw new Error("x");
    await receipt;
    // A second payment Telegram confirmed for the same purchase (a race with the first).
    const message = paid.update.message;
    const stray: Update = {
      update_id: paid.update.update_id + 20_000,
      message: {
        ...message,
        message_id: message.message_id + 1,
        successful_payment: {
          ...message.successful_payment,
          telegram_payment_charge_id: `${paid.telegramChargeId}-second`,
          provider_payment_charge_id: "prov-second",
        },
      } as Update["message"],
    };
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("Refund due", { timeoutMs: 5_000 });
    const owed = user.waitForText("will be refunded", { timeoutMs: 5_000 });
    stack.emulator.injectUpdate(BOT_TOKEN, stray);
    expect((await alert).text).toContain("prov-second");
    expect((await owed).text).toContain("prov-second");
    expect(topups()).toBe(1);
  });

  it("refunds when the provider refuses after payment; /refunds lists it, /refunded records it once", async () => {
    const { user, invoice } = await withInvoice();
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("Refund due", { timeoutMs: 8_000 });
    const owed = user.waitForText("will be refunded", { timeoutMs: 8_000 });
    await user.pay(invoice.message_id, { providerChargeId: "prov-refund-me" });
    expect((await owed).text).toContain("prov-refund-me");
    expect((await alert).text).toContain("prov-refund-me");
    expect(topups()).toBe(0);

    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain("prov-refund-me");
    expect(listed.text).toContain("Telegram Payments (card) · provider charge prov-refund-me");
    const purchaseId = /purchase (\S+),/.exec((await alert).text ?? "")?.[1];
    expect(purchaseId).toBeTruthy();
    const refunded = user.waitForText("was refunded", { timeoutMs: 5_000 });
    await expectReply(
      admin,
      () => admin.sendText(`/refunded ${purchaseId} card refund 42`),
      "Recorded",
    );
    await refunded;
    const history = await expectReply(user, () => user.sendText("/history"), "Refunded");
    expect(history.text).toContain("Payment: Telegram Payments (card) · reference prov-refund-me");
    await expectReply(admin, () => admin.sendText(`/refunded ${purchaseId}`), "No refund is due");
    const after = await expectReply(admin, () => admin.sendText("/refunds"), /Refund/);
    expect(after.text).not.toContain("prov-refund-me");

    // The ledger says who refunded it, once.
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    const rows = await db.query(
      "SELECT refund, refunded_by, refund_note FROM payments WHERE purchase_id = $1",
      [purchaseId],
    );
    const events = await db.query(
      "SELECT to_phase FROM purchase_events WHERE purchase_id = $1 ORDER BY id",
      [purchaseId],
    );
    await db.end();
    expect(rows.rows).toEqual([
      { refund: "refunded", refunded_by: `telegram:${ADMIN}`, refund_note: "card refund 42" },
    ]);
    expect(events.rows.map((r) => r.to_phase)).toEqual(
      expect.arrayContaining(["awaiting-payment", "paid", "refund-due", "refunded"]),
    );
  });

  it("a refund owed to a buyer who blocked the bot is alerted all the same, and telling stops", async () => {
    const { user, invoice } = await withInvoice();
    // The paid top-up's fresh listing waits a moment: the buyer blocks the bot meanwhile.
    for (const operation of ["get-customer-information", "get-subscription-package"] as const) {
      stack.sandbox.setFault(operation, { kind: "latency", ms: 1_000, times: 1 });
    }
    stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("Refund due", { timeoutMs: 10_000 });
    const unreachable = admin.waitForText("cannot be messaged", { timeoutMs: 10_000 });
    await user.pay(invoice.message_id, { providerChargeId: "prov-blocked" });
    user.block();
    expect((await alert).text).toContain("prov-blocked");
    expect((await unreachable).text).toContain("prov-blocked");
    expect(topups()).toBe(0);
    expect(user.messages().some((m) => m.text?.includes("will be refunded"))).toBe(false);
    const purchaseId = /purchase (\S+),/.exec((await alert).text ?? "")?.[1];
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query("SELECT phase, told FROM purchases WHERE id = $1", [
        purchaseId,
      ]);
      // Marked told: the reconciliation does not try it again (and again).
      expect(rows).toEqual([{ phase: "refund-due", told: "refund-due" }]);
    } finally {
      await db.end();
    }
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain("prov-blocked");
    user.unblock();
  });

  it("refunds, without topping up, when the price changed between the invoice and the top-up", async () => {
    const { user, invoice } = await withInvoice();
    rewriteListing(stack.sandbox, (body) => {
      for (const b of body.tv.bouquets) if (b.code === "TV-GOLD-M") b.price = 999;
    });
    const owed = user.waitForText("will be refunded", { timeoutMs: 8_000 });
    await user.pay(invoice.message_id, { providerChargeId: "prov-price-changed" });
    expect((await owed).text).toContain("price changed");
    expect(topups()).toBe(0);
  });

  it("never refunds while the top-up's outcome is unknown: operators are alerted, then the receipt", async () => {
    const { user, invoice } = await withInvoice();
    stack.sandbox.setFault("subscription-package-topup", {
      kind: "connection-reset",
      afterEffect: true,
      times: 1,
    });
    stack.sandbox.setFault("txn-status", { kind: "http-500" });
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("still unknown", { timeoutMs: 10_000 });
    const checking = user.waitForText("as soon as we know", { timeoutMs: 10_000 });
    await user.pay(invoice.message_id, { providerChargeId: "prov-unknown" });
    await checking;
    expect((await alert).text).toContain("prov-unknown");
    expect(user.messages().some((m) => m.text?.includes("will be refunded"))).toBe(false);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    stack.sandbox.clearFaults();
    await receipt;
    expect(topups()).toBe(1);
  });

  it("refuses /refunds and /refunded to anyone else", async () => {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "No", language_code: "en" });
    const reply = await expectReply(user, () => user.sendText("/refunds"), /.+/);
    expect(reply.text).not.toContain("Refunds due");
  });
});

describe("the pre-checkout query", () => {
  /** A pre-checkout query as Telegram would send it, forged or not. */
  function inject(user: ChatUser, payload: string, total: number, currency = "NPR"): string {
    const id = `pcq-${Math.random().toString(36).slice(2)}`;
    stack.emulator.injectUpdate(BOT_TOKEN, {
      update_id: 900_000 + Math.floor(Math.random() * 90_000),
      pre_checkout_query: {
        id,
        from: user.user,
        currency,
        total_amount: total,
        invoice_payload: payload,
      },
    });
    return id;
  }

  it("refuses a forged payload, a different total or currency, in the user's language", async () => {
    const { user, invoice } = await withInvoice();
    const total = invoice.invoice?.total_amount ?? 0;
    const forged = await preCheckoutAnswer(inject(user, "no-such-purchase", total));
    expect(forged.ok).toBe(false);
    expect(forged.errorMessage).toContain("not known");
    const purchaseId = (await lastPurchaseId(user.id)) ?? "";
    const cheaper = await preCheckoutAnswer(inject(user, purchaseId, total - 100));
    expect(cheaper.errorMessage).toContain("does not match");
    const dollars = await preCheckoutAnswer(inject(user, purchaseId, total, "USD"));
    expect(dollars.errorMessage).toContain("does not match");
    const nepali = stack.emulator.user({ id: user.id, first_name: "Pay", language_code: "ne" });
    const inNepali = await preCheckoutAnswer(inject(nepali, "forged", total));
    expect(inNepali.errorMessage).toContain("थाहा छैन");
    expect(topups()).toBe(0);
  });

  it("refuses while top-ups are paused (the provider refuses our token)", async () => {
    const { user, invoice } = await withInvoice();
    stack.sandbox.setFault("get-customer-information", { kind: "http-401" });
    const other = stack.emulator.user({ id: ++nextUser, first_name: "Ot", language_code: "en" });
    await expectReply(other, () => other.sendText("/topup 1000001"), /paused|unavailable/);
    const refused = await user.pay(invoice.message_id);
    expect(refused.kind).toBe("refused");
    if (refused.kind === "refused") expect(refused.errorMessage).toContain("paused");
    stack.sandbox.clearFaults();
    // Someone's lookup probes the provider again and finds it back: the same invoice pays.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expectReply(other, () => other.sendText("/topup 1000001"), "Choose a package");
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
    await receipt;
    expect(topups()).toBe(1);
  });

  it("makes a cancelled invoice unpayable, and offers to start again", async () => {
    const { user, invoice } = await withInvoice();
    const cancelled = await expectReply(
      user,
      () => user.press(/Cancel/, { messageId: invoice.message_id }),
      "Payment cancelled",
    );
    // The way on is one tap: a new /topup.
    expect(buttonsOf(user, cancelled)).toEqual(["🔄 Start again"]);
    await expectReply(
      user,
      () => user.press("🔄 Start again", { messageId: cancelled.message_id }),
      "Whose package",
    );
    const attempt = await user.pay(invoice.message_id);
    expect(attempt.kind).toBe("unavailable");
    const purchaseId = (await lastPurchaseId(user.id)) ?? "";
    const late = await preCheckoutAnswer(
      inject(user, purchaseId, invoice.invoice?.total_amount ?? 0),
    );
    expect(late.errorMessage).toContain("cancelled");
  });

  it("/cancel withdraws the invoice too", async () => {
    const { user, invoice } = await withInvoice();
    await expectReply(user, () => user.sendText("/cancel"), "Cancelled");
    expect((await user.pay(invoice.message_id)).kind).toBe("unavailable");
  });

  it("ends an invoice not paid within PAYMENT_WINDOW_SECONDS: withdrawn, the buyer told", async () => {
    const { user, invoice } = await withInvoice();
    const ended = await user.waitForText("not paid in time", { timeoutMs: 6_000 });
    expect(buttonsOf(user, ended)).toEqual(["🔄 Start again"]);
    expect((await user.pay(invoice.message_id)).kind).toBe("unavailable");
    expect(topups()).toBe(0);
  });

  it("a paid invoice loses its Cancel, keeping only the Pay button Telegram requires (its receipt)", async () => {
    const { user, invoice } = await withInvoice();
    expect(buttonsOf(user, invoice)).toEqual([expect.stringMatching(/Pay NPR/), "Cancel"]);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
    await receipt;
    const shownInvoice = () => user.messages().find((m) => m.message_id === invoice.message_id);
    await until(() => buttonsOf(user, shownInvoice()).join() === "🧾 Receipt", 5_000);
    const kept = shownInvoice()?.reply_markup?.inline_keyboard.flat() ?? [];
    expect(kept).toEqual([{ text: "🧾 Receipt", pay: true }]);
    // Telegram shows the receipt behind it: it cannot be paid again.
    expect((await user.pay(invoice.message_id)).kind).toBe("unavailable");
    expect(topups()).toBe(1);
  });
});

async function lastPurchaseId(buyer: number): Promise<string | undefined> {
  return (await purchasesOf(stack.env.DATABASE_URL ?? "", buyer)).at(-1)?.id;
}
