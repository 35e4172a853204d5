// Checks of the initiate and refund bodies. Like Django REST framework, every field is checked
// and all errors come back at once, each field with its list of messages.

import { isJsonObject, type JsonObject } from "../payment-fakes/control.js";
import type { FieldErrors } from "./wire.js";

export { isJsonObject, type JsonObject };

/** What a valid initiate request asks for. */
export interface InitiateOrder {
  returnUrl: string;
  websiteUrl: string;
  amount: number;
  purchaseOrderId: string;
  purchaseOrderName: string;
}

type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

const MIN_AMOUNT = 1000;
const REQUIRED = "This field is required.";

/** An integer, or a string of digits: Khalti's serializer accepts both ("10000" in its docs). */
function parseInteger(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^\s*-?\d{1,15}\s*$/.test(value)) return Number(value);
  return undefined;
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? "list" : value === null ? "null" : typeof value;
}

function text(body: JsonObject, field: string, errors: FieldErrors): string {
  const value = body[field];
  if (value === undefined) errors[field] = [REQUIRED];
  else if (value === null) errors[field] = ["This field may not be null."];
  else if (typeof value !== "string") errors[field] = ["Not a valid string."];
  else if (value.trim() === "") errors[field] = ["This field may not be blank."];
  else return value;
  return "";
}

function url(body: JsonObject, field: string, errors: FieldErrors): string {
  const value = text(body, field, errors);
  if (errors[field]) return value;
  const protocol = URL.canParse(value) ? new URL(value).protocol : undefined;
  if (protocol !== "http:" && protocol !== "https:") errors[field] = ["Enter a valid URL."];
  return value;
}

function amount(body: JsonObject, errors: FieldErrors): number {
  const raw = body.amount;
  const value = parseInteger(raw);
  if (raw === undefined) errors.amount = [REQUIRED];
  else if (value === undefined) errors.amount = ["A valid integer is required."];
  else if (value < MIN_AMOUNT) {
    errors.amount = ["Amount should be greater than Rs. 10, that is 1000 paisa."];
  } else return value;
  return 0;
}

/** The optional extras: checked for shape only, and the breakdown for its total. */
function extras(body: JsonObject, total: number, errors: FieldErrors): void {
  const info = body.customer_info;
  if (info !== undefined && info !== null && !isJsonObject(info)) {
    errors.customer_info = [`Expected a dictionary of items but got type "${typeName(info)}".`];
  }
  for (const field of ["amount_breakdown", "product_details"]) {
    const list = body[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || !list.every(isJsonObject)) {
      errors[field] = ["Expected a list of items."];
    }
  }
  const breakdown = body.amount_breakdown;
  if (Array.isArray(breakdown) && !errors.amount_breakdown && !errors.amount) {
    const parts = breakdown.map((item: JsonObject) => parseInteger(item.amount));
    const sum = parts.reduce<number>((acc, part) => acc + (part ?? Number.NaN), 0);
    if (sum !== total) errors.amount_breakdown = ["Amount breakdown does not match the amount."];
  }
}

export function checkInitiate(body: unknown): Checked<InitiateOrder> {
  if (!isJsonObject(body)) {
    const message = `Invalid data. Expected a dictionary, but got ${typeName(body)}.`;
    return { ok: false, errors: { non_field_errors: [message] } };
  }
  const errors: FieldErrors = {};
  const order: InitiateOrder = {
    returnUrl: url(body, "return_url", errors),
    websiteUrl: url(body, "website_url", errors),
    amount: amount(body, errors),
    purchaseOrderId: text(body, "purchase_order_id", errors),
    purchaseOrderName: text(body, "purchase_order_name", errors),
  };
  extras(body, order.amount, errors);
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: order };
}

/** A lookup's pidx. */
export function checkLookup(body: unknown): Checked<string> {
  const errors: FieldErrors = {};
  const pidx = isJsonObject(body) ? text(body, "pidx", errors) : "";
  if (!isJsonObject(body)) errors.pidx = [REQUIRED];
  return errors.pidx ? { ok: false, errors } : { ok: true, value: pidx };
}

/**
 * A refund's body: `amount` undefined for a full refund, else what it asks for; `mobile`, the
 * payer's Khalti account, when it names one (a bank payment's refund needs it).
 */
export function refundBody(
  body: unknown,
): { amount: number | undefined; mobile: string | undefined } | { error: string } {
  const object = isJsonObject(body) ? body : {};
  const mobile = object.mobile;
  if (mobile !== undefined && mobile !== null && typeof mobile !== "string") {
    return { error: "The mobile must be a string." };
  }
  const raw = object.amount;
  const given = typeof mobile === "string" ? mobile : undefined;
  if (raw === undefined || raw === null) return { amount: undefined, mobile: given };
  const value = parseInteger(raw);
  return value !== undefined && value > 0
    ? { amount: value, mobile: given }
    : { error: "The refund amount must be a positive integer of paisa." };
}
