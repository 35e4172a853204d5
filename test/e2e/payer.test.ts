// The payer is the buyer (#36 point 4), with a real bot process, the emulator taking the
// payment as Telegram does, the sandbox and PostgreSQL: an invoice forwarded to someone else
// opens the bot instead of paying; another user's pre-checkout on the buyer's invoice is
// refused and a payment by someone else pays for nothing (owed back to them); a Pay tapped
// while the chat's /cancel is still being handled is refused; the ledger records who paid.
import type { Message, Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { paymentsOf, purchasesOf } from "../support/ledger-rows.js";
import { PAID, withInvoice } from "../support/paying.js";
import { BOT_TOKEN } from "../support/stack.js";
import { until } from "../support/wait.js";

let stack: ProcessStack;
beforeAll(async () => {
  stack = await startProcessStack("payer", { emulator: { preCheckoutTimeoutMs: 9_000 } });
  stack.startBot(PAID);
}, 30_000);
afterAll(() => stack.stop());

/** The buyer's one purchase as the ledger has it. */
async function purchaseOf(buyer: number) {
  const [purchase, ...others] = await purchasesOf(stack.databaseUrl, buyer);
  expect(others).toEqual([]);
  if (!purchase) throw new Error("no purchase");
  return purchase;
}

/** Whether the bot fetched the pre-checkout query of this user (long polling). */
const fetchedPreCheckout = (userId: number) =>
  stack.emulator
    .calls("getUpdates")
    .some(
      (call) =>
        call.response.ok &&
        (call.response.result as Update[]).some(
          (update) => update.pre_checkout_query?.from.id === userId,
        ),
    );

describe("someone other than the buyer", () => {
  it("gets a copy of the invoice that opens the bot, which says whose it is", async () => {
    const { user, invoice } = await withInvoice(stack, 6601);
    expect(invoice.invoice?.start_parameter).toBe("forwarded-invoice");
    const friend = stack.emulator.user({ id: 6602, first_name: "Fr", language_code: "ne" });
    const told = friend.waitForText("यो बिल अरू कसैलाई पठाइएको हो");
    const opened = await friend.payForwarded(user.chatId, invoice.message_id);
    expect(opened.kind).toBe("opened-bot");
    await told;
    const purchase = await purchaseOf(user.id);
    expect(purchase.phase).toBe("awaiting-payment");
    expect(await paymentsOf(stack.databaseUrl, purchase.id)).toEqual([]);
  }, 30_000);

  it("is refused at the pre-checkout, in their language; nothing is recorded and the buyer still pays", async () => {
    const { user, invoice } = await withInvoice(stack, 6611);
    const friend = stack.emulator.user({ id: 6612, first_name: "Fr", language_code: "en" });
    const refused = await friend.payForwarded(user.chatId, invoice.message_id, {
      ignoreStartParameter: true,
    });
    expect(refused).toMatchObject({
      kind: "refused",
      errorMessage: expect.stringContaining("belongs to someone else's purchase"),
    });
    const purchase = await purchaseOf(user.id);
    expect(purchase.phase).toBe("awaiting-payment");
    expect(await paymentsOf(stack.databaseUrl, purchase.id)).toEqual([]);
    expect(stack.sandbox.topups).toHaveLength(0);

    // The buyer's own Pay is taken, and the ledger records who paid.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
    await receipt;
    expect(await paymentsOf(stack.databaseUrl, purchase.id)).toEqual([
      { payer: user.id, buyer: user.id, applied: true, refund: "none" },
    ]);
  }, 45_000);

  it("whose payment arrives anyway pays for nothing: owed back to them, and they are told", async () => {
    const { user, invoice } = await withInvoice(stack, 6621);
    const purchase = await purchaseOf(user.id);
    const friend = stack.emulator.user({ id: 6622, first_name: "Fr", language_code: "en" });
    // Telegram's confirmation of a payment by the friend (a check an older release let pass).
    const told = friend.waitForText("It will be refunded", { timeoutMs: 10_000 });
    stack.emulator.injectUpdate(BOT_TOKEN, {
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: friend.chatId, type: "private", first_name: "Fr" },
        from: { id: friend.id, is_bot: false, first_name: "Fr", language_code: "en" },
        successful_payment: {
          currency: invoice.invoice?.currency ?? "NPR",
          total_amount: invoice.invoice?.total_amount ?? 0,
          invoice_payload: purchase.id,
          telegram_payment_charge_id: "tg-charge-friend",
          provider_payment_charge_id: "prov-friend",
        },
      },
    });
    expect((await told).text).toContain("someone else's purchase");
    expect(await paymentsOf(stack.databaseUrl, purchase.id)).toEqual([
      { payer: friend.id, buyer: user.id, applied: false, refund: "due" },
    ]);
    expect((await purchaseOf(user.id)).phase).toBe("awaiting-payment");
    expect(stack.sandbox.topups).toHaveLength(1);
    expect(user.messages().some((message: Message) => /refund/i.test(message.text ?? ""))).toBe(
      false,
    );
  }, 30_000);
});

describe("a Pay tapped right after /cancel", () => {
  it("is refused when its pre-checkout arrives while the cancel is still being handled", async () => {
    const { user, invoice } = await withInvoice(stack, 6631);
    // The chat's "hello" waits for its answer (held), and /cancel waits for its turn behind it:
    // the pre-checkout comes while the cancel is being handled.
    const held = stack.emulator.holdNext("sendMessage", { chatId: user.chatId });
    user.sendText("hello");
    await held.reached;
    user.sendText("/cancel");
    const paying = user.pay(invoice.message_id);
    await until(() => fetchedPreCheckout(user.id), 5_000);
    const cancelled = user.waitForText("Cancelled", { timeoutMs: 10_000 });
    held.release();
    const result = await paying;
    expect(result).toMatchObject({
      kind: "refused",
      errorMessage: expect.stringContaining("This invoice was cancelled"),
    });
    await cancelled;
    const purchase = await purchaseOf(user.id);
    expect(purchase.phase).toBe("unpaid");
    expect(await paymentsOf(stack.databaseUrl, purchase.id)).toEqual([]);
  }, 30_000);
});
