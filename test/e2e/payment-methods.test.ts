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
    // The summary keeps the other method's button.
    const summaryButtons = () => buttonsOf(user, shown(user, confirm)).join();
    await until(() => summaryButtons() === "💳 Pay by card", 5_000);
    const invoice = await switchToCard(user, link);
    expect(invoice.invoice?.total_amount).toBe(70_000);
    await until(() => summaryButtons() === "📱 Pay with Khalti", 5_000);
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
    expect(topups()).toBe(1);
    expect(await payments(user.id)).toEqual([
      { method: "telegram", applied: true, refund: "none" },
      { method: "khalti", applied: false, refund: "refunded" },
    ]);
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
