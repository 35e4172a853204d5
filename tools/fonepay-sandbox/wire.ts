// Fonepay's messages as the sandbox writes and checks them, with code of its own (never the
// bot's): the dataValidation (HMAC-SHA512 over the values joined by commas, hex in either case,
// as Fonepay's own samples disagree), the EMVCo QR text with its CRC-16/CCITT-FALSE, the socket's
// messages (transactionStatus a JSON string, as Fonepay sends it) and the status answer.

import { createHmac, timingSafeEqual } from "node:crypto";

export const QR_PATH = "/api/merchant/merchantDetailsForThirdParty/thirdPartyDynamicQrDownload";
export const STATUS_PATH =
  "/api/merchant/merchantDetailsForThirdParty/thirdPartyDynamicQrGetStatus";
/** The socket of one QR: its prn after this. */
export const SOCKET_PREFIX = "/convergent-webSocket-web/merchantEndPoint/thirdparty/";

function hmacHex(key: string, values: readonly string[]): string {
  return createHmac("sha512", key).update(values.join(",")).digest("hex");
}

/** Whether `given` is the HMAC of `values`, in lower- or upper-case hex. */
export function signatureHolds(key: string, values: readonly string[], given: unknown): boolean {
  if (typeof given !== "string" || !/^[0-9a-fA-F]{128}$/.test(given)) return false;
  const expected = Buffer.from(hmacHex(key, values), "hex");
  return timingSafeEqual(expected, Buffer.from(given, "hex"));
}

function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, "utf8")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, "0");
}

const tlv = (tag: string, value: string) =>
  `${tag}${String(value.length).padStart(2, "0")}${value}`;

/**
 * A QR text whose checksum holds but that binds no amount (tag 54 left out: the payer types
 * one) or asks it in another currency than rupees (tag 53 not 524): the fault a changed template
 * or a tampered answer would be.
 */
export type OddQr = "no-amount" | "other-currency";

/** A dynamic EMVCo merchant-presented QR text for this payment, its checksum last. */
export function qrText(
  payment: { merchantCode: string; amount: string; prn: string },
  odd?: OddQr,
): string {
  const head = [
    tlv("00", "01"),
    tlv("01", "12"),
    tlv("26", tlv("00", "fonepay.com") + tlv("01", payment.merchantCode.slice(0, 30))),
    tlv("52", "4814"),
    tlv("53", odd === "other-currency" ? "840" : "524"),
    odd === "no-amount" ? "" : tlv("54", payment.amount),
    tlv("58", "NP"),
    tlv("59", "SANDBOX MERCHANT"),
    tlv("60", "KATHMANDU"),
    tlv("62", tlv("01", payment.prn)),
  ].join("");
  return `${head}6304${crc16(`${head}6304`)}`;
}

/** The same text with its checksum spoilt (the fault that a QR's checksum does not hold). */
export const spoilt = (text: string) =>
  `${text.slice(0, -4)}${text.endsWith("0000") ? "FFFF" : "0000"}`;

/** A socket message: `transactionStatus` is JSON text inside the JSON. */
export function socketMessage(merchantCode: string, status: Record<string, unknown>): string {
  return JSON.stringify({
    merchantId: merchantCode,
    deviceId: "sandbox-device",
    transactionStatus: JSON.stringify(status),
  });
}

/** Fonepay's date as its socket writes it: "Apr 11, 2019 1:43:23 PM". */
export function fonepayDate(date: Date): string {
  const month = date.toLocaleString("en-US", { month: "short", timeZone: "Asia/Kathmandu" });
  const rest = date.toLocaleString("en-US", {
    day: "numeric",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    second: "2-digit",
    hour12: true,
    timeZone: "Asia/Kathmandu",
  });
  return `${month} ${rest}`;
}

export const refusal = (message: string) => ({
  errorCode: 406,
  message,
  documentation: "https://merchantapi.fonepay.com/docs",
});
