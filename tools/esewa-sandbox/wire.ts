// What eSewa's side says, byte for byte where it matters: its references, its amounts as Java
// writes a double, its signatures and the JSON it writes. The sandbox signs and verifies with
// code of its own, never the bot's, so it cannot agree with a bug in the bot.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The redirect's signed fields, in eSewa's order. */
export const REDIRECT_SIGNED_FIELD_NAMES =
  "transaction_code,status,total_amount,transaction_uuid,product_code,signed_field_names";

/** The fields a form must sign, whatever else it signs. */
export const FORM_MUST_SIGN = ["total_amount", "transaction_uuid", "product_code"] as const;

const CODE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A 7-character reference like eSewa's (000AWEO): the redirect's transaction_code, ref_id. */
export function newReference(): string {
  return [...randomBytes(7)].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join("");
}

const RUPEES = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

/** "100.5" → 10050 paisa; undefined for anything but plain rupees with at most two decimals. */
export function paisaOf(text: string): number | undefined {
  const match = RUPEES.exec(text);
  if (!match?.[1]) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/**
 * An amount as eSewa writes it, Java's Double.toString: 100000 paisa → "1000.0", 10050 →
 * "100.5", 10005 → "100.05". Integer arithmetic only.
 */
export function esewaAmount(paisa: number): string {
  const rupees = Math.floor(paisa / 100);
  const fraction = String(paisa % 100)
    .padStart(2, "0")
    .replace(/(\d)0$/, "$1");
  return `${rupees}.${fraction}`;
}

/** The sandbox's own HMAC: base64 HMAC-SHA256 of `name=value,...` over the listed fields. */
export function sign(
  secretKey: string,
  fields: Readonly<Record<string, string>>,
  signedFieldNames: string,
): string | undefined {
  const parts: string[] = [];
  for (const name of signedFieldNames.split(",")) {
    const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (name === "" || value === undefined) return undefined;
    parts.push(`${name}=${value}`);
  }
  return createHmac("sha256", secretKey).update(parts.join(","), "utf8").digest("base64");
}

export function signatureMatches(
  secretKey: string,
  fields: Readonly<Record<string, string>>,
  signedFieldNames: string,
  signature: string,
): boolean {
  const expected = sign(secretKey, fields, signedFieldNames);
  if (expected === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A value written into JSON: a string, or raw JSON text (eSewa's `1000.0`). */
export type JsonValue = string | null | { raw: string };

/** A JSON object written field by field, so that a number keeps eSewa's text. */
export function jsonText(fields: readonly [string, JsonValue][]): string {
  const members = fields.map(([name, value]) => {
    const text =
      value === null ? "null" : typeof value === "string" ? JSON.stringify(value) : value.raw;
    return `${JSON.stringify(name)}:${text}`;
  });
  return `{${members.join(",")}}`;
}

/** eSewa's error body: `{"code": …, "error_message": …}`. */
export function esewaError(code: string | number, message: string): string {
  return JSON.stringify({ code, error_message: message });
}

export const INVALID_SIGNATURE = esewaError("ES104", "Invalid payload signature");
/** What eSewa answers for a product code it does not know. */
export const UNKNOWN_MERCHANT = esewaError(
  0,
  "Unable to fetch merchant key. Please try again later.",
);
export const UNAVAILABLE = "Service is currently unavailable";

/** A gateway's error page, as a failing eSewa answers: not JSON. */
export const SERVER_ERROR_PAGE =
  "<!doctype html><html><head><title>500 Internal Server Error</title></head>" +
  "<body><h1>Internal Server Error</h1></body></html>";
