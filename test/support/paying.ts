// Paying with Telegram Payments against bot processes: the settings, an invoice in front of a
// new subscriber, and a confirmation as Telegram would deliver it.
import type { Message, Update } from "grammy/types";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import type { BotProcess, ProcessStack } from "./bot-process.js";
import { expectReply } from "./chat.js";

/** Telegram Payments with short leases and reconciliation, and the info log lines. */
export const PAID = {
  PAYMENT_MODE: "telegram",
  PAYMENT_PROVIDER_TOKEN: "284685063:TEST:crash",
  CURRENCY: "NPR",
  TOPUP_LOCK_SECONDS: "2",
  RECONCILE_INTERVAL_SECONDS: "1",
  LOG_LEVEL: "info",
};

export const logged = (bot: BotProcess, message: string) =>
  bot.logs().filter((line) => line.msg === message);

/** A new subscriber with an invoice for 1000001's Gold renewal in front of them. */
export async function withInvoice(stack: ProcessStack, id: number) {
  const user = stack.emulator.user({ id, first_name: "Cr", language_code: "en" });
  await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 15_000);
  await expectReply(user, () => user.press(/Renew/), "Please confirm");
  const invoice = user.waitForMessage((message: Message) => message.invoice !== undefined);
  user.press(/Pay NPR/);
  return { user, invoice: await invoice };
}

/** The successful_payment Telegram delivers for `invoice` (its check passed just before). */
export function confirmationOf(
  user: ChatUser,
  invoice: Message,
  purchaseId: string,
  charge: { updateId: number; id: string; providerId: string },
): Update {
  return {
    update_id: charge.updateId,
    message: {
      message_id: charge.updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: user.chatId, type: "private", first_name: "Cr" },
      from: { id: user.id, is_bot: false, first_name: "Cr", language_code: "en" },
      successful_payment: {
        currency: invoice.invoice?.currency ?? "NPR",
        total_amount: invoice.invoice?.total_amount ?? 0,
        invoice_payload: purchaseId,
        telegram_payment_charge_id: charge.id,
        provider_payment_charge_id: charge.providerId,
      },
    },
  };
}
