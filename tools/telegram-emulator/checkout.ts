// Paying an invoice as a Telegram client does: the bot gets a pre_checkout_query and has
// preCheckoutTimeoutMs to answer it; after an ok the card is charged (or declined) and the
// bot gets the successful_payment service message from the user.

import type { PreCheckoutQuery, SuccessfulPayment, User } from "grammy/types";
import type { ChatLog } from "./chat-log.js";
import type { PaymentResult, PayOptions, PreCheckoutAnswer, StoredMessage } from "./types.js";
import type { BotState, PreCheckoutState, World } from "./world.js";

export async function payInvoice(
  world: World,
  bot: BotState,
  log: ChatLog,
  from: User,
  entry: StoredMessage,
  options: PayOptions,
): Promise<PaymentResult> {
  const invoice = entry.message.invoice;
  const state = bot.invoices.get(entry);
  if (!invoice || !state) {
    throw new Error(`Message #${entry.messageId} in chat ${entry.chatId} is not an invoice`);
  }
  if (state.isFlexible) throw new Error("Flexible invoices (shipping_query) are not emulated");
  if (entry.deleted) return { kind: "unavailable", reason: "the invoice message was deleted" };
  if (state.paid && !options.again) {
    return { kind: "unavailable", reason: "the invoice is paid already: Telegram shows a receipt" };
  }

  const query: PreCheckoutQuery = {
    id: world.nextId(),
    from,
    currency: invoice.currency,
    total_amount: invoice.total_amount,
    invoice_payload: state.payload,
  };
  const answer = await askBot(world, bot, query, entry);
  if (!answer) return { kind: "timeout", preCheckoutQuery: query };
  if (!answer.ok) {
    return { kind: "refused", preCheckoutQuery: query, errorMessage: answer.errorMessage ?? "" };
  }
  if (options.outcome === "declined") return { kind: "declined", preCheckoutQuery: query };

  const payment: SuccessfulPayment = {
    currency: invoice.currency,
    total_amount: invoice.total_amount,
    invoice_payload: state.payload,
    telegram_payment_charge_id: `${bot.id}_${from.id}_${world.nextId()}`,
    provider_payment_charge_id: options.providerChargeId ?? `ch_${world.nextId()}`,
  };
  state.paid = true;
  const { message, update } = world.postUserUpdate(bot, log, from, {
    successful_payment: payment,
  });
  return {
    kind: "paid",
    preCheckoutQuery: query,
    message,
    update,
    telegramChargeId: payment.telegram_payment_charge_id,
    providerChargeId: payment.provider_payment_charge_id,
  };
}

/**
 * Sends the bot the query and waits for its answer; undefined after the timeout (also when
 * allowed_updates kept the query from the bot, which then cannot answer).
 */
function askBot(
  world: World,
  bot: BotState,
  query: PreCheckoutQuery,
  entry: StoredMessage,
): Promise<PreCheckoutAnswer | undefined> {
  return new Promise((resolve) => {
    const pending: PreCheckoutState = {
      userId: query.from.id,
      chatId: entry.chatId,
      messageId: entry.messageId,
      status: "pending",
      settle: (answer) => {
        clearTimeout(timer);
        pending.status = "answered";
        resolve(answer);
      },
    };
    const timer = setTimeout(() => {
      pending.status = "expired";
      resolve(undefined);
    }, world.preCheckoutTimeoutMs);
    bot.preCheckoutQueries.set(query.id, pending);
    world.enqueue(bot, { pre_checkout_query: query });
  });
}
