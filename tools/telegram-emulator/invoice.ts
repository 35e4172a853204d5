// sendInvoice's parameters checked as Telegram does: the Bot API server's own checks (its
// wording), TDLib's price rules and the server's limits; and the Pay button an invoice
// always has.

import type { InlineKeyboardMarkup, Invoice } from "grammy/types";
import { badRequest } from "./api-error.js";
import { characterCount } from "./formatted-text.js";
import type { Params } from "./params.js";
import { inlineKeyboardOf, type ReplyMarkup } from "./reply-markup.js";

const MAX_TITLE_LENGTH = 32;
const MAX_DESCRIPTION_LENGTH = 255;
const MAX_PAYLOAD_BYTES = 128;
/** TDLib's bound on any amount, and on the total. */
const MAX_AMOUNT = 9999_9999_9999;
const START_PARAMETER = /^[A-Za-z0-9_-]{0,64}$/;
/** Telegram Stars: no provider, one price. */
const STARS = "XTR";
/** Intl formats any well-formed code; only the ones it knows are currencies. */
const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

export interface InvoiceInput {
  /** As the message shows it. */
  invoice: Invoice;
  /** Kept by Telegram, handed back in the pre_checkout_query and successful_payment. */
  payload: string;
  isFlexible: boolean;
}

export function readInvoice(params: Params): InvoiceInput {
  const title = required(params, "title");
  const description = required(params, "description");
  const payload = required(params, "payload");
  const currency = required(params, "currency");
  const amounts = readPrices(params);

  if (title.trim() === "") throw badRequest("INVOICE_TITLE_EMPTY");
  if (characterCount(title) > MAX_TITLE_LENGTH) throw badRequest("INVOICE_TITLE_TOO_LONG");
  if (description.trim() === "") throw badRequest("INVOICE_DESCRIPTION_EMPTY");
  if (characterCount(description) > MAX_DESCRIPTION_LENGTH) {
    throw badRequest("INVOICE_DESCRIPTION_TOO_LONG");
  }
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw badRequest("INVOICE_PAYLOAD_INVALID");
  if (currency !== STARS && !CURRENCIES.has(currency)) throw badRequest("CURRENCY_INVALID");
  const providerToken = params.string("provider_token") ?? "";
  if ((currency === STARS) !== (providerToken === "")) throw badRequest("PAYMENT_PROVIDER_INVALID");
  if (currency === STARS && amounts.length !== 1) throw badRequest("STARS_INVOICE_INVALID");
  const startParameter = params.string("start_parameter") ?? "";
  if (!START_PARAMETER.test(startParameter)) throw badRequest("START_PARAM_INVALID");

  return {
    invoice: {
      title,
      description,
      start_parameter: startParameter,
      currency,
      total_amount: totalOf(amounts),
    },
    payload,
    isFlexible: params.boolean("is_flexible"),
  };
}

/**
 * An invoice's inline keyboard: the bot's own, whose first button must be the Pay button,
 * or else the one Pay button Telegram shows.
 */
export function invoiceMarkup(
  markup: ReplyMarkup | undefined,
  invoice: Invoice,
): InlineKeyboardMarkup {
  const keyboard = inlineKeyboardOf(markup);
  if (!keyboard) return { inline_keyboard: [[{ text: payLabel(invoice), pay: true }]] };
  const first = keyboard.inline_keyboard[0]?.[0];
  if (!(first && "pay" in first && first.pay === true)) throw badRequest("REPLY_MARKUP_BUY_EMPTY");
  return keyboard;
}

/** "Pay $12.50", from the total in the currency's minor units. */
function payLabel({ currency, total_amount }: Invoice): string {
  if (currency === STARS) return `Pay ⭐️${total_amount}`;
  const format = new Intl.NumberFormat("en", { style: "currency", currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return `Pay ${format.format(total_amount / 10 ** digits)}`;
}

/** The Bot API server refuses a missing or empty required parameter. */
function required(params: Params, name: string): string {
  const value = params.string(name) ?? "";
  if (value === "") throw badRequest(`parameter "${name}" is required`);
  return value;
}

/** The amounts of `prices`, a JSON array of LabeledPrice. */
function readPrices(params: Params): number[] {
  const prices = params.json("prices");
  if (prices === undefined) throw badRequest('parameter "prices" is required');
  if (!Array.isArray(prices)) throw badRequest("expected an Array of labeled prices");
  const amounts = prices.map((price: unknown) => {
    const amount = readAmount(price);
    if (typeof amount === "string") throw badRequest(`can't parse labeled price: ${amount}`);
    return amount;
  });
  if (amounts.length === 0) throw badRequest("there must be at least one price");
  return amounts;
}

/** A price's amount, or why it is not one. */
function readAmount(price: unknown): number | string {
  if (typeof price !== "object" || price === null || Array.isArray(price)) {
    return "LabeledPrice must be an Object";
  }
  const { label, amount } = price as { label?: unknown; amount?: unknown };
  if (typeof label !== "string") {
    return label === undefined
      ? 'Can\'t find field "label"'
      : 'Field "label" must be of type String';
  }
  if (label === "") return "LabeledPrice label must be non-empty";
  if (amount === undefined) return 'Can\'t find field "amount"';
  // Telegram takes integers, also as strings; never fractions of the minor unit.
  const value =
    typeof amount === "string" && /^-?\d+$/.test(amount)
      ? Number(amount)
      : typeof amount === "number"
        ? amount
        : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    return typeof amount === "number" || typeof amount === "string"
      ? 'Field "amount" must be a valid Number'
      : 'Field "amount" must be of type Number';
  }
  return value;
}

/** TDLib's rules: every amount and the total within bounds, the total positive. */
function totalOf(amounts: number[]): number {
  if (amounts.some((amount) => Math.abs(amount) > MAX_AMOUNT)) {
    throw badRequest("too big amount of the currency specified");
  }
  const total = amounts.reduce((sum, amount) => sum + amount, 0);
  if (total <= 0) throw badRequest("total price must be positive");
  if (total > MAX_AMOUNT) throw badRequest("total price is too big");
  return total;
}
