// eSewa ePay v2's signatures, pure: the form the buyer's browser posts to eSewa, signed, and the
// `data` eSewa's redirect brings back, verified. A signature is the base64 HMAC-SHA256, with the
// merchant's secret key, of `name=value` for each field `signed_field_names` lists, in its
// order, joined by commas. The redirect is verified over its own list, with the values exactly
// as received (`total_amount` comes back as `1000.0`). Even a valid redirect is only a hint:
// the payment is believed when the status check says so (esewa-status.ts).
// Nothing here logs or puts a key, a signature's input or a value in an error message.

import { createHmac, timingSafeEqual } from "node:crypto";
import { esewaFields } from "./esewa-json.js";

/** What the form signs: eSewa's published list, in its order. */
export const FORM_SIGNED_FIELD_NAMES = "total_amount,transaction_uuid,product_code";

/** The redirect's fields a caller relies on: a `data` that leaves one unsigned is refused. */
const REDIRECT_FIELDS = [
  "transaction_code",
  "status",
  "total_amount",
  "transaction_uuid",
  "product_code",
] as const;

/** Letters, digits and hyphens only, as eSewa takes a transaction_uuid. */
const TRANSACTION_UUID = /^[A-Za-z0-9-]+$/;
/** Rupees as text with at most the currency's two digits, no sign, no leading zeros. */
const RUPEES = /^(?:0|[1-9]\d*)(?:\.\d{1,2})?$/;
/** A redirect's data is small; anything much longer is not eSewa's. */
const MAX_DATA_LENGTH = 4096;

/** The text that is signed, or undefined when a listed field is missing or a name is empty. */
function signatureInput(
  fields: Readonly<Record<string, string>>,
  signedFieldNames: string,
): string | undefined {
  const parts: string[] = [];
  for (const name of signedFieldNames.split(",")) {
    const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (name === "" || value === undefined) return undefined;
    parts.push(`${name}=${value}`);
  }
  return parts.join(",");
}

const hmac = (secretKey: string, input: string): string =>
  createHmac("sha256", secretKey).update(input, "utf8").digest("base64");

/**
 * The signature of `fields` over `signedFieldNames` (comma-separated, in that order).
 * Throws a RangeError when a listed field is missing.
 */
export function esewaSignature(
  secretKey: string,
  fields: Readonly<Record<string, string>>,
  signedFieldNames: string,
): string {
  const input = signatureInput(fields, signedFieldNames);
  if (input === undefined) throw new RangeError("a signed field is missing or unnamed");
  return hmac(secretKey, input);
}

/**
 * Whether `signature` is the signature of `fields` over `signedFieldNames`. Compared in
 * constant time; false (never a throw) for a missing field or a signature of another length.
 */
export function isEsewaSignature(
  secretKey: string,
  fields: Readonly<Record<string, string>>,
  signedFieldNames: string,
  signature: string,
): boolean {
  const input = signatureInput(fields, signedFieldNames);
  if (input === undefined) return false;
  const expected = Buffer.from(hmac(secretKey, input), "utf8");
  const received = Buffer.from(signature, "utf8");
  return expected.length === received.length && timingSafeEqual(expected, received);
}

/** The merchant's side of every form: from the configuration. */
export interface EsewaMerchant {
  productCode: string;
  secretKey: string;
  /** Where eSewa sends the buyer after paying (`?data=` appended). */
  successUrl: string;
  /** Where eSewa sends the buyer after a cancel, a failure or a pending payment. */
  failureUrl: string;
}

/** The form posted to eSewa's form URL, every field eSewa requires, in its documented order. */
export interface EsewaForm {
  readonly amount: string;
  readonly tax_amount: string;
  readonly total_amount: string;
  readonly transaction_uuid: string;
  readonly product_code: string;
  readonly product_service_charge: string;
  readonly product_delivery_charge: string;
  readonly success_url: string;
  readonly failure_url: string;
  readonly signed_field_names: string;
  readonly signature: string;
}

/**
 * The signed form for a purchase of `totalAmount` rupees (exact text such as "700" or "65.50":
 * it is sent and signed as given) under `transactionUuid`. The whole amount is `amount`; tax and
 * charges are unused, `0`. Throws a RangeError for an amount that is not a positive number of
 * rupees with at most two decimals, or a uuid with other than letters, digits and hyphens.
 */
export function esewaForm(
  merchant: EsewaMerchant,
  totalAmount: string,
  transactionUuid: string,
): EsewaForm {
  if (!RUPEES.test(totalAmount) || !/[1-9]/.test(totalAmount)) {
    throw new RangeError("the total must be a positive amount of rupees, at most two decimals");
  }
  if (!TRANSACTION_UUID.test(transactionUuid)) {
    throw new RangeError("a transaction_uuid has letters, digits and hyphens only");
  }
  const unsigned = {
    amount: totalAmount,
    tax_amount: "0",
    total_amount: totalAmount,
    transaction_uuid: transactionUuid,
    product_code: merchant.productCode,
    product_service_charge: "0",
    product_delivery_charge: "0",
    success_url: merchant.successUrl,
    failure_url: merchant.failureUrl,
    signed_field_names: FORM_SIGNED_FIELD_NAMES,
  };
  const signature = esewaSignature(merchant.secretKey, unsigned, FORM_SIGNED_FIELD_NAMES);
  return { ...unsigned, signature };
}

/** A redirect's `data` whose signature verified: its fields as received. */
export interface EsewaRedirect {
  transactionCode: string;
  /** eSewa's word (COMPLETE on the success URL): a hint, never proof of payment. */
  status: string;
  /** As received, e.g. "1000.0": compare as an amount, not as text. */
  totalAmount: string;
  transactionUuid: string;
  /** The caller checks it is its own. */
  productCode: string;
  /** Every scalar field of the data, as received. */
  fields: Readonly<Record<string, string>>;
}

export type EsewaRedirectCheck =
  | { ok: true; redirect: EsewaRedirect }
  /**
   * `malformed`: not base64 of a JSON object with the fields and a signature; `unsigned`: its
   * signed_field_names leaves out a field the redirect is read for; `signature`: it does not
   * verify.
   */
  | { ok: false; reason: "malformed" | "unsigned" | "signature" };

/**
 * The JSON text of `data`, or undefined. Standard or URL-safe base64, padded or not; a space
 * counts as the `+` a query parser made of an unescaped plus.
 */
function decodeData(data: string): string | undefined {
  if (data.length > MAX_DATA_LENGTH) return undefined;
  const base64 = data.replaceAll(" ", "+");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(base64) || base64.replace(/=+$/, "").length % 4 === 1) {
    return undefined;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(base64, "base64"));
  } catch {
    return undefined;
  }
}

/**
 * Verifies the `data` of eSewa's redirect over its own `signed_field_names`, with the values
 * exactly as received. Whatever `data` is (missing, not base64, not JSON, altered), the answer
 * is a value, never a throw.
 */
export function verifyEsewaRedirect(secretKey: string, data: unknown): EsewaRedirectCheck {
  const text = typeof data === "string" ? decodeData(data) : undefined;
  const fields = text === undefined ? undefined : esewaFields(text);
  const names = fields?.signed_field_names;
  const signature = fields?.signature;
  if (!fields || names === undefined || signature === undefined) {
    return { ok: false, reason: "malformed" };
  }
  const [transactionCode, status, totalAmount, transactionUuid, productCode] = REDIRECT_FIELDS.map(
    (name) => (Object.hasOwn(fields, name) ? fields[name] : undefined),
  );
  if (
    transactionCode === undefined ||
    status === undefined ||
    totalAmount === undefined ||
    transactionUuid === undefined ||
    productCode === undefined
  ) {
    return { ok: false, reason: "malformed" };
  }
  const signed = new Set(names.split(","));
  if (!REDIRECT_FIELDS.every((name) => signed.has(name))) return { ok: false, reason: "unsigned" };
  if (!isEsewaSignature(secretKey, fields, names, signature)) {
    return { ok: false, reason: "signature" };
  }
  return {
    ok: true,
    redirect: { transactionCode, status, totalAmount, transactionUuid, productCode, fields },
  };
}
