// What Khalti's API says, byte for byte where it matters: ids, times, masked numbers and the
// bodies of its answers (Django REST framework's shapes).

import { randomBytes } from "node:crypto";
import type { KhaltiPayment, KhaltiStatus } from "./types.js";

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A 22-character id like Khalti's pidx and transaction ids (bZQLD9wRVWo4CdESSfuSsB). */
export function newId(): string {
  return [...randomBytes(22)].map((byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join("");
}

// Nepal is UTC+05:45 all year; Khalti writes its times there, with microseconds.
const NEPAL_OFFSET_MS = (5 * 60 + 45) * 60_000;

/** `2026-11-24T18:30:00.123000+05:45` */
export function khaltiTime(at: Date): string {
  const wallClock = new Date(at.getTime() + NEPAL_OFFSET_MS).toISOString();
  return `${wallClock.slice(0, 23)}000+05:45`;
}

/** 9800000001 → 98XXXXX001, as the redirect shows the buyer's wallet. */
export function maskMobile(mobile: string): string {
  return `${mobile.slice(0, 2)}${"X".repeat(mobile.length - 5)}${mobile.slice(-3)}`;
}

export type FieldErrors = Record<string, string[]>;

export const INVALID_TOKEN = { detail: "Invalid token.", status_code: 401 };
export const NOT_FOUND = { detail: "Not found.", error_key: "validation_error" };

export function validationError(errors: FieldErrors): Record<string, unknown> {
  return { ...errors, error_key: "validation_error" };
}

export function detail(message: string): { detail: string } {
  return { detail: message };
}

/** The lookup body; `status` may differ from the payment's own (a Pending fault). */
export function lookupBody(payment: KhaltiPayment, status: KhaltiStatus): Record<string, unknown> {
  return {
    pidx: payment.pidx,
    total_amount: payment.totalAmount,
    status,
    transaction_id: payment.transactionId,
    fee: payment.fee,
    refunded: payment.refunded,
  };
}

/** Khalti reports the final unpaid states with HTTP 400, the body shaped as any lookup. */
export function lookupHttpStatus(status: KhaltiStatus): number {
  return status === "Expired" || status === "User canceled" || status === "Failed" ? 400 : 200;
}

/** A gateway's error page, as a failing Khalti answers: not JSON. */
export const SERVER_ERROR_PAGE =
  "<!doctype html><html><head><title>Server Error (500)</title></head>" +
  "<body><h1>Server Error (500)</h1></body></html>";
