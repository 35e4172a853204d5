// Payments: sendInvoice posts an invoice (its payload kept aside, as Telegram keeps it),
// createInvoiceLink keeps one behind a t.me/$slug link (a Mini App's openInvoice), and
// answerPreCheckoutQuery answers a paying user's query, once and in time (checkout.ts).

import type { Message } from "grammy/types";
import { badRequest } from "../api-error.js";
import { invoiceMarkup, readInvoice } from "../invoice.js";
import { readReplyMarkup } from "../reply-markup.js";
import type { PreCheckoutAnswer, StoredMessage } from "../types.js";
import { admitSend, assertCanPost, type MethodCall, targetChat } from "./method-call.js";
import { replyTarget } from "./send.js";

export function sendInvoice(call: MethodCall): Message {
  const log = targetChat(call);
  const { invoice, payload, isFlexible } = readInvoice(call.params);
  const markup = invoiceMarkup(readReplyMarkup(call.params, true), invoice);
  const replyTo = replyTarget(call, log);
  assertCanPost(call, log);
  admitSend(call);
  const entry = call.world.storeBotMessage(
    call.bot,
    log,
    { invoice, reply_to_message: replyTo },
    markup,
  );
  call.bot.invoices.set(entry, { payload, isFlexible, paid: false });
  return entry.message;
}

/** The invoice behind a link: checked as sendInvoice's, kept until a user pays it (driver). */
export function createInvoiceLink(call: MethodCall): string {
  const { invoice, payload, isFlexible } = readInvoice(call.params);
  const slug = `inv${call.world.nextId()}`;
  const entry: StoredMessage = {
    botId: call.bot.id,
    chatId: 0,
    messageId: 0,
    sentByBot: true,
    message: { invoice } as Message,
    versions: [],
    markup: undefined,
    deleted: false,
  };
  call.bot.invoices.set(entry, { payload, isFlexible, paid: false });
  call.bot.invoiceLinks.set(slug, entry);
  return `https://t.me/$${slug}`;
}

export function answerPreCheckoutQuery({ world, bot, params }: MethodCall): true {
  const ok = params.boolean("ok");
  const errorMessage = params.string("error_message") ?? "";
  // The Bot API server checks this before asking Telegram about the query.
  if (!ok && errorMessage === "") throw badRequest('parameter "error_message" is required');
  const id = params.string("pre_checkout_query_id") ?? "";
  const query = bot.preCheckoutQueries.get(id);
  if (!query || query.status === "answered") throw badRequest("QUERY_ID_INVALID");
  if (query.status === "expired") {
    throw badRequest("query is too old and response timeout expired or query ID is invalid");
  }
  const answer: PreCheckoutAnswer = {
    preCheckoutQueryId: id,
    userId: query.userId,
    chatId: query.chatId,
    messageId: query.messageId,
    ok,
    errorMessage: ok ? undefined : errorMessage,
  };
  world.preCheckoutAnswers.push(answer);
  world.emit({ type: "pre-checkout-answer", botId: bot.id, chatId: query.chatId, answer });
  query.settle(answer);
  return true;
}
