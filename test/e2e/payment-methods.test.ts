// PAYMENT_METHODS=khalti,telegram: the buyer picks a method on the confirm screen (one button
// each, in the configured order) and may pick the other before paying: the earlier offer is
// withdrawn (the Khalti link's buttons removed, the Telegram invoice deleted) and a new one made
// on the same purchase. A payment that still arrives on a withdrawn offer pays for the purchase
// when nothing else did, and is owed back when something did.
import type { Message } from "grammy/types";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import { type EsewaGateways, startEsewaGateways } from "../support/esewa-gateways.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { confirmationOf } from "../support/paying.js";
import { freePort } from "../support/ports.js";
import { BOT_TOKEN, type Stack, startStack } from "../support/stack.js";
import { until } from "../support/wait.js";

const SECRET = "methods-e2e-secret";
let stack: Stack;
let khalti: KhaltiSandbox;
let nextUser = 9700;

beforeAll(async () => {
  khalti = await createKhaltiSandbox({ secretKey: SECRET });
  const port = await freePort();
  stack = await startStack(
    "payment_methods",
    {
      PAYMENT_MODE: "",
      PAYMENT_METHODS: "khalti,telegram",
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:methods",
      KHALTI_SECRET_KEY: SECRET,
      KHALTI_BASE_URL: khalti.url,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      HTTP_PORT: String(port),
      HTTP_HOST: "127.0.0.1",
      PAYMENT_CHECK_SECONDS: "1",
      PAYMENT_WINDOW_SECONDS: "30",
    },
    {},
    { preCheckoutTimeoutMs: 3_000 },
  );
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
const isInvoice = (message: Message) => message.invoice !== undefined;
/** The message as the chat shows it now; undefined once deleted. */
const shown = (user: ChatUser, message: Message) =>
  user.messages().find((m) => m.message_id === message.message_id);

async function payments(buyer: number) {
  const client = new pg.Client({ connectionString: stack.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT method, applied, refund FROM payments WHERE buyer = $1 ORDER BY id`,
      [buyer],
    );
    return rows as { method: string; applied: boolean; refund: string }[];
  } finally {
    await client.end();
  }
}

/** A new subscriber at the confirm screen of 1000001's Gold renewal. */
async function atConfirm(): Promise<{ user: ChatUser; confirm: Message }> {
  const user = stack.emulator.user({ id: ++nextUser, first_name: "Mm", language_code: "en" });
  await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
  const confirm = await expectReply(user, () => user.press(/Renew/), "Please confirm");
  return { user, confirm };
}

/** Khalti chosen: its link below the summary. */
async function withKhaltiLink() {
  const { user, confirm } = await atConfirm();
  const link = await expectReply(user, () => user.press(/Pay with Khalti/), "with Khalti below");
  const pidx = khalti.payments().at(-1)?.pidx ?? "";
  return { user, confirm, link, pidx };
}

/** Then card instead: the invoice sent, the link's buttons gone. */
async function switchToCard(user: ChatUser, link: Message): Promise<Message> {
  const invoice = user.waitForMessage(isInvoice);
  user.press(/Pay by card/);
  const sent = await invoice;
  await until(() => buttonsOf(user, shown(user, link)).length === 0, 5_000);
  return sent;
}

describe("several payment methods", () => {
  it("the confirm screen has one button per method, in the configured order", async () => {
    const { user, confirm } = await atConfirm();
    const buttons = buttonsOf(user, confirm);
    const khaltiAt = buttons.indexOf("📱 Pay with Khalti");
    const cardAt = buttons.indexOf("💳 Pay by card");
    expect(khaltiAt).toBeGreaterThanOrEqual(0);
    expect(cardAt).toBeGreaterThan(khaltiAt);
    expect(buttons.some((label) => /Pay NPR/.test(label))).toBe(false);
  });

  it("a switch of method withdraws the earlier offer and makes the new one, on one purchase", async () => {
    const { user, confirm, link } = await withKhaltiLink();
    // The summary keeps the other method's button, and names the method chosen.
    const summaryButtons = () => buttonsOf(user, shown(user, confirm)).join();
    await until(() => summaryButtons() === "💳 Pay by card instead", 5_000);
    expect(shown(user, confirm)?.text).toContain("Pay with the Khalti link below.");
    const invoice = await switchToCard(user, link);
    expect(invoice.invoice?.total_amount).toBe(70_000);
    await until(() => summaryButtons() === "📱 Pay with Khalti instead", 5_000);
    expect(shown(user, confirm)?.text).toContain("Pay with the invoice below.");
    // The withdrawn link says so, naming its system, and keeps no button.
    expect(shown(user, link)?.text).toContain("This Khalti payment link is withdrawn");
    expect(shown(user, link)?.text).not.toContain("with Khalti below");
    // And back: the invoice is deleted, a new link shown.
    const second = await expectReply(
      user,
      () => user.press(/Pay with Khalti/),
      "with Khalti below",
    );
    await until(() => shown(user, invoice) === undefined, 5_000);
    expect(buttonsOf(user, second)).toEqual(
      expect.arrayContaining([expect.stringMatching(/Pay NPR.*with Khalti/)]),
    );
    const client = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT p.payment_method, count(o.*)::int AS offers,
                count(o.withdrawn_at)::int AS withdrawn
         FROM purchases p JOIN payment_offers o ON o.purchase_id = p.id
         WHERE p.buyer = $1 GROUP BY p.id`,
        [user.id],
      );
      expect(rows).toEqual([{ payment_method: "khalti", offers: 3, withdrawn: 2 }]);
    } finally {
      await client.end();
    }
    expect(topups()).toBe(0);
  });

  it("a payment on the withdrawn Khalti link tops up when nothing else paid", async () => {
    const { user, link, pidx } = await withKhaltiLink();
    const invoice = await switchToCard(user, link);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    // The buyer had the Khalti page open, and pays there after all.
    khalti.pay(pidx);
    expect((await receipt).text).toContain("with Khalti");
    expect(topups()).toBe(1);
    // The invoice can no longer be paid.
    await until(() => shown(user, invoice) === undefined, 5_000);
    expect(await payments(user.id)).toEqual([{ method: "khalti", applied: true, refund: "none" }]);
  });

  it("a Telegram payment on the deleted invoice tops up when nothing else paid", async () => {
    const { user } = await atConfirm();
    const invoice = user.waitForMessage(isInvoice);
    user.press(/Pay by card/);
    const sent = await invoice;
    await expectReply(user, () => user.press(/Pay with Khalti/), "with Khalti below");
    await until(() => shown(user, sent) === undefined, 5_000);
    // Telegram delivers a payment made on the invoice just as it was deleted.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    const [purchase] = await purchasesOf(stack.env.DATABASE_URL ?? "", user.id);
    stack.emulator.injectUpdate(
      BOT_TOKEN,
      confirmationOf(user, sent, purchase?.id ?? "", {
        updateId: 970_001,
        id: "tg-charge-withdrawn",
        providerId: "provider-withdrawn",
      }),
    );
    expect((await receipt).text).toMatch(/Top-up successful/);
    expect(topups()).toBe(1);
    expect(await payments(user.id)).toEqual([
      { method: "telegram", applied: true, refund: "none" },
    ]);
  });

  it("paid on both offers: one top-up, and the other payment owed back (refunded through Khalti)", async () => {
    const { user, link, pidx } = await withKhaltiLink();
    const invoice = await switchToCard(user, link);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    const paid = await user.pay(invoice.message_id);
    expect(paid.kind).toBe("paid");
    await receipt;
    // Then the Khalti page left open is paid too: found by the next look, and given back.
    khalti.pay(pidx);
    await until(() => khalti.payments().find((p) => p.pidx === pidx)?.refunded === true, 10_000);
    // Khalti answers before the bot records it: the ledger's write follows.
    await until(async () => (await payments(user.id))[1]?.refund === "refunded", 5_000);
    expect(topups()).toBe(1);
    expect(await payments(user.id)).toEqual([
      { method: "telegram", applied: true, refund: "none" },
      { method: "khalti", applied: false, refund: "refunded" },
    ]);
  });
});

describe("a payment that pays for nothing, on a purchase whose top-up is unknown", () => {
  it("is not refunded until the top-up is settled: looked at right before the refund, then given back once", async () => {
    const { user, link, pidx } = await withKhaltiLink();
    const invoice = await switchToCard(user, link);
    // The card's top-up is executed, its answer lost, and txn-status cannot say: unknown.
    stack.sandbox.setFault("subscription-package-topup", {
      kind: "connection-reset",
      afterEffect: true,
      times: 1,
    });
    stack.sandbox.setFault("txn-status", { kind: "http-500" });
    const checking = user.waitForText("as soon as we know", { timeoutMs: 10_000 });
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
    await checking;
    // Then the Khalti page left open is paid: found, and owed back, but not refunded yet.
    const held = () =>
      stack.logs().filter((line) => line.includes("under way or unknown: no refund yet")).length;
    const heldBefore = held();
    const refundsBefore = khalti.calls.refunds();
    khalti.pay(pidx);
    await until(async () => (await payments(user.id))[1]?.refund === "due", 10_000);
    await until(() => held() >= heldBefore + 2, 10_000);
    expect(khalti.calls.refunds()).toBe(refundsBefore);
    // The provider answers again: the top-up is found, then the stray payment given back.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    stack.sandbox.clearFaults();
    await receipt;
    await until(async () => (await payments(user.id))[1]?.refund === "refunded", 10_000);
    expect(khalti.calls.refunds()).toBe(refundsBefore + 1);
    expect(topups()).toBe(1);
    expect(await payments(user.id)).toEqual([
      { method: "telegram", applied: true, refund: "none" },
      { method: "khalti", applied: false, refund: "refunded" },
    ]);
    // The failing txn-status opened the provider's circuit: its next probe closes it, before
    // the next test asks for a listing.
    const probe = stack.emulator.user({ id: ++nextUser, first_name: "Pr", language_code: "en" });
    await until(async () => {
      const reply = await expectReply(
        probe,
        () => probe.sendText("/topup 1000001"),
        /Choose a package|not available/,
      );
      return reply.text?.includes("Choose a package") ?? false;
    }, 15_000);
  }, 50_000);
});

/** The callback data of a button of `message` (a tap a client may still send later). */
function dataOf(message: Message | undefined, label: RegExp): string {
  const button = message?.reply_markup?.inline_keyboard
    .flat()
    .find((b) => label.test(b.text) && "callback_data" in b);
  return button && "callback_data" in button ? (button.callback_data ?? "") : "";
}

/**
 * A tap on a button of the summary that arrives after its purchase was paid or cancelled (a
 * client that had not updated yet): "This menu has expired", the summary's buttons give way to
 * Start again, and nothing else happens (no offer made, no payment asked for).
 */
async function staleTap(user: ChatUser, summary: Message, data: string) {
  const invoices = user.messages().filter(isInvoice).length;
  const links = khalti.payments().length;
  const purchases = (await purchasesOf(stack.env.DATABASE_URL ?? "", user.id)).length;
  const answer = user.waitForCallbackAnswer();
  user.pressData(data, summary.message_id);
  expect((await answer).text).toBe("This menu has expired.");
  await until(() => buttonsOf(user, shown(user, summary)).join() === "🔄 Start again", 5_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(user.messages().filter(isInvoice).length).toBe(invoices);
  expect(khalti.payments().length).toBe(links);
  expect((await purchasesOf(stack.env.DATABASE_URL ?? "", user.id)).length).toBe(purchases);
  // Start again is a new /topup (this buyer's saved connection offered first once topped up).
  await expectReply(
    user,
    () => user.press("🔄 Start again", { messageId: summary.message_id }),
    /Whose package|Top up one of your connections/,
  );
}

describe("no button that does nothing, once a purchase is paid or cancelled", () => {
  it("paid by card: the other methods leave the summary, the invoice its Cancel; a late tap starts nothing", async () => {
    const { user, confirm } = await atConfirm();
    const invoice = user.waitForMessage(isInvoice);
    user.press(/Pay by card/);
    const sent = await invoice;
    await until(() => buttonsOf(user, shown(user, confirm)).length === 1, 5_000);
    const khaltiTap = dataOf(shown(user, confirm), /Pay with Khalti instead/);
    expect(khaltiTap).not.toBe("");
    expect(shown(user, confirm)?.text).toContain("Pay with the invoice below.");

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    expect((await user.pay(sent.message_id)).kind).toBe("paid");
    await receipt;
    // No button left that leads nowhere: the summary has none, the invoice only its receipt.
    await until(() => buttonsOf(user, shown(user, confirm)).length === 0, 5_000);
    await until(() => buttonsOf(user, shown(user, sent)).join() === "🧾 Receipt", 5_000);

    await staleTap(user, confirm, khaltiTap);
    expect(topups()).toBe(1);
    expect(await payments(user.id)).toEqual([
      { method: "telegram", applied: true, refund: "none" },
    ]);
  });

  it("cancelled under the Khalti link: the link says it is withdrawn, the summary loses its buttons, Start again offered; a late tap starts nothing", async () => {
    const { user, confirm, link } = await withKhaltiLink();
    await until(() => buttonsOf(user, shown(user, confirm)).length === 1, 5_000);
    const cardTap = dataOf(shown(user, confirm), /Pay by card instead/);
    expect(shown(user, confirm)?.text).toContain("Pay with the Khalti link below.");
    const cancelled = await expectReply(
      user,
      () => user.press("Cancel", { messageId: link.message_id }),
      "Payment cancelled",
    );
    expect(buttonsOf(user, cancelled)).toEqual(["🔄 Start again"]);
    await until(() => buttonsOf(user, shown(user, link)).length === 0, 5_000);
    expect(shown(user, link)?.text).toContain("This Khalti payment link is withdrawn");
    await until(() => buttonsOf(user, shown(user, confirm)).length === 0, 5_000);

    await staleTap(user, confirm, cardTap);
    // The Cancel of the link, tapped again by a client that still shows it: the same way on.
    const cancelData = dataOf(link, /^Cancel$/);
    const again = user.waitForCallbackAnswer();
    user.pressData(cancelData, link.message_id);
    expect((await again).text).toBe("This menu has expired.");
    await until(() => buttonsOf(user, shown(user, link)).join() === "🔄 Start again", 5_000);
    expect(await purchasesOf(stack.env.DATABASE_URL ?? "", user.id)).toEqual([
      expect.objectContaining({ phase: "unpaid" }),
    ]);
    expect(topups()).toBe(0);
  });

  it("a late tap on Cancel of a paid invoice: the menu has expired, and the invoice keeps its receipt", async () => {
    const { user } = await atConfirm();
    const invoice = user.waitForMessage(isInvoice);
    user.press(/Pay by card/);
    const sent = await invoice;
    const cancelData = dataOf(sent, /^Cancel$/);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    expect((await user.pay(sent.message_id)).kind).toBe("paid");
    await receipt;
    const answer = user.waitForCallbackAnswer();
    user.pressData(cancelData, sent.message_id);
    expect((await answer).text).toBe("This menu has expired.");
    await until(
      () => buttonsOf(user, shown(user, sent)).join() === "🧾 Receipt,🔄 Start again",
      5_000,
    );
    expect(user.messages().some((m) => m.text?.includes("Payment cancelled"))).toBe(false);
    expect(topups()).toBe(1);
  });
});

describe("three methods: eSewa, Khalti and card", () => {
  let three: EsewaGateways;
  beforeAll(async () => {
    three = await startEsewaGateways("payment_methods_three", {
      PAYMENT_MODE: "",
      PAYMENT_METHODS: "esewa,khalti,telegram",
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:methods",
      KHALTI_SECRET_KEY: SECRET,
      KHALTI_BASE_URL: khalti.url,
      PAYMENT_WINDOW_SECONDS: "30",
    });
  });
  afterAll(() => three?.stop());

  it("three buttons in the configured order; a switch from eSewa to Khalti withdraws the eSewa link", async () => {
    const user = three.stack.emulator.user({
      id: ++nextUser,
      first_name: "Mt",
      language_code: "en",
    });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    const confirm = await expectReply(user, () => user.press(/Renew/), "Please confirm");
    const buttons = buttonsOf(user, confirm);
    const order = ["🟢 Pay with eSewa", "📱 Pay with Khalti", "💳 Pay by card"].map((label) =>
      buttons.indexOf(label),
    );
    expect(order[0]).toBeGreaterThanOrEqual(0);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const link = await expectReply(user, () => user.press(/Pay with eSewa/), "with eSewa");
    const button = link.reply_markup?.inline_keyboard.flat().find((b) => "url" in b);
    const payUrl = button && "url" in button ? (button.url ?? "") : "";
    expect((await three.openPayPage(payUrl)).html).toContain("<form");
    await expectReply(user, () => user.press(/Pay with Khalti/), "with Khalti below");
    // The eSewa link loses its buttons and its pay page its form, on the same purchase.
    await until(() => buttonsOf(user, shown(user, link)).length === 0, 5_000);
    const withdrawn = await three.openPayPage(payUrl);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.html).not.toContain("<form");
    expect(await purchasesOf(three.stack.env.DATABASE_URL ?? "", user.id)).toEqual([
      expect.objectContaining({ phase: "awaiting-payment" }),
    ]);
  });
});
