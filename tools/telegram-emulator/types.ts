// The emulator's public types: options, the people and groups tests create, what it
// records and the events a live UI can follow.

import type { Message, PreCheckoutQuery, ResponseParameters, Update } from "grammy/types";
import type { ReplyMarkup } from "./reply-markup.js";

export interface TelegramEmulatorOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Bots known before they call; any `<digits>:<secret>` token becomes a bot on first use anyway. */
  bots?: BotSpec[];
  floodLimit?: FloodLimit;
  /** How webhook POSTs are timed out and retried (Telegram's own are slower). */
  webhook?: WebhookTiming;
  /** How long a paying user waits for answerPreCheckoutQuery (default 10 000, as Telegram). */
  preCheckoutTimeoutMs?: number;
}

export interface WebhookTiming {
  /** A POST without an answer this long is a failed attempt (default 10 000). */
  timeoutMs?: number;
  /** Wait before the same update is posted again (default 1 000). */
  retryDelayMs?: number;
  /** Attempts per update before it is dropped (default 5). */
  maxAttempts?: number;
}

/** One POST of an update to a bot's webhook. */
export interface WebhookDelivery {
  updateId: number;
  attempt: number;
  /** The HTTP status; undefined when there was no answer (refused, timed out). */
  status: number | undefined;
  error?: string;
  time: Date;
}

export interface BotSpec {
  token: string;
  first_name?: string;
  username?: string;
}

/** A bot, by token or by id. */
export type BotRef = string | number;

export interface DriverOptions {
  /** Which bot the user talks to; only needed once several bots have been seen. */
  botToken?: string;
}

export interface UserSpec {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
  /** Shared by sendContact() and request_contact buttons. */
  phone_number?: string;
}

export interface GroupSpec {
  /** Negative, as Telegram's group ids are. */
  id: number;
  title: string;
  type?: "group" | "supergroup";
  username?: string;
  /** The bot's status when it is first seen in the group (default "member"). */
  botStatus?: "member" | "administrator";
}

export type MemberStatus = "creator" | "administrator" | "member";

/** Beyond `perSecond` accepted message sends within any 1-second window: 429. */
export interface FloodLimit {
  perSecond: number;
}

export interface ForcedError {
  error_code: number;
  description: string;
  parameters?: ResponseParameters;
}

export type ApiResponse =
  | { ok: true; result: unknown }
  | {
      ok: false;
      error_code: number;
      description: string;
      parameters?: ResponseParameters;
    };

export interface ApiCall {
  /** undefined when the token was rejected. */
  botId: number | undefined;
  /** The method's canonical name ("sendMessage"), or as requested when unknown. */
  method: string;
  payload: Record<string, unknown>;
  response: ApiResponse;
  time: Date;
}

export interface StoredMessage {
  readonly botId: number;
  readonly chatId: number;
  readonly messageId: number;
  readonly sentByBot: boolean;
  /** The current version, as the Bot API returns it. */
  message: Message;
  /** Every version, oldest first; the last one is `message`. */
  readonly versions: Message[];
  /** reply_markup as sent; `message.reply_markup` only ever carries an inline keyboard. */
  markup: ReplyMarkup | undefined;
  deleted: boolean;
}

export interface StoredFile {
  fileId: string;
  /** Where the bot said to fetch it from. */
  url?: string;
  /** What the bot uploaded. */
  upload?: { filename: string; bytes: Buffer };
}

export interface CallbackAnswer {
  callbackQueryId: string;
  userId: number;
  chatId: number;
  messageId: number;
  text: string | undefined;
  showAlert: boolean;
  url: string | undefined;
}

/** An accepted answerPreCheckoutQuery. */
export interface PreCheckoutAnswer {
  preCheckoutQueryId: string;
  userId: number;
  chatId: number;
  /** The invoice message being paid. */
  messageId: number;
  ok: boolean;
  /** Only when ok is false (Telegram ignores it otherwise). */
  errorMessage: string | undefined;
}

export interface PayOptions {
  /** What the card does once the bot said ok: "paid" (the default) or "declined". */
  outcome?: "paid" | "declined";
  /** provider_payment_charge_id of the payment; generated when absent. */
  providerChargeId?: string;
  /** Pays an invoice that was paid already (Telegram shows its receipt instead). */
  again?: boolean;
}

/** How ChatUser.pay ended. */
export type PaymentResult =
  | {
      kind: "paid";
      preCheckoutQuery: PreCheckoutQuery;
      /** The successful_payment service message in the chat. */
      message: Message;
      /** The update carrying it (to inject again); undefined when the bot does not get it. */
      update: Update | undefined;
      telegramChargeId: string;
      providerChargeId: string;
    }
  /** The bot said ok, the card was declined: no message. */
  | { kind: "declined"; preCheckoutQuery: PreCheckoutQuery }
  /** The bot answered ok: false. */
  | { kind: "refused"; preCheckoutQuery: PreCheckoutQuery; errorMessage: string }
  /** No answer within preCheckoutTimeoutMs (or the bot never got the query). */
  | { kind: "timeout"; preCheckoutQuery: PreCheckoutQuery }
  /** Nothing to pay: the invoice was deleted, or paid already. */
  | { kind: "unavailable"; reason: string };

/** How ChatUser.payForwarded ended: paid (or not) as pay(), or the copy's deep link opened the bot. */
export type ForwardedInvoiceResult =
  | PaymentResult
  | { kind: "opened-bot"; startParameter: string; message: Message };

export type EmulatorEvent =
  | { type: "message"; botId: number; chatId: number; message: Message; sentByBot: boolean }
  | { type: "edit"; botId: number; chatId: number; message: Message }
  | { type: "delete"; botId: number; chatId: number; messageId: number }
  | { type: "callback-answer"; botId: number; chatId: number; answer: CallbackAnswer }
  | { type: "pre-checkout-answer"; botId: number; chatId: number; answer: PreCheckoutAnswer }
  | { type: "chat-action"; botId: number; chatId: number; action: string }
  | { type: "update"; botId: number; chatId: number | undefined; update: Update };

/** An update to inject; update_id is assigned when absent. */
export type UpdateInput = Omit<Update, "update_id"> & { update_id?: number };
