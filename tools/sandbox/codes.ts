// Response codes of the sandbox. The success codes are the provider's own (spec section 4);
// the spec defines no failure codes, so the sandbox uses its own, one per distinct failure,
// prefixed `SBX_` so they can never be mistaken for real provider codes.

import type { SandboxOperation } from "./types.js";

export const SUCCESS_CODES: Record<SandboxOperation, string> = {
  "get-customer-information": "400aa010",
  "get-subscription-package": "400aa010",
  "subscription-package-topup": "400ab001",
  "txn-status": "400ab001",
};

/** Every failure code the sandbox can send, with its HTTP status and one-line meaning. */
export const FAILURE_CODES = {
  SBX_ROUTE_NOT_FOUND: { http: 404, meaning: "No such path or method (all operations are POST)." },
  SBX_UNAUTHORIZED: { http: 401, meaning: "Missing or wrong `Authorization: Bearer <token>`." },
  SBX_INVALID_JSON: { http: 400, meaning: "The request body is not a JSON object." },
  SBX_INVALID_FIELD: { http: 400, meaning: "A required field is missing or has the wrong type." },
  SBX_CUSTOMER_NOT_FOUND: { http: 200, meaning: "No customer has this code / cuid." },
  SBX_CONNECTION_NOT_FOUND: {
    http: 200,
    meaning: "The customer has no connection of this service with this reqId.",
  },
  SBX_CHECKOUT_UNKNOWN: { http: 200, meaning: "The checkoutId was never issued." },
  SBX_CHECKOUT_USED: { http: 200, meaning: "The checkoutId was already used for a top-up." },
  SBX_CHECKOUT_EXPIRED: { http: 200, meaning: "The checkoutId is older than its validity." },
  SBX_CHECKOUT_MISMATCH: {
    http: 200,
    meaning: "The checkoutId was issued for another cuid, service or reqId.",
  },
  SBX_BOUQUET_NOT_OFFERED: {
    http: 200,
    meaning: "The bouquetId is not in this connection's bouquet list.",
  },
  SBX_AMOUNT_INVALID: { http: 200, meaning: "amt is not a number or numeric string." },
  SBX_AMOUNT_MISMATCH: { http: 200, meaning: "amt differs from the bouquet's price." },
  SBX_UDF_TOO_LONG: { http: 200, meaning: "udf1 or udf2 is longer than 30 characters (v1.0.1)." },
  SBX_TXN_NOT_FOUND: {
    http: 200,
    meaning: "No successful top-up was made with this checkoutId (unknown or unused).",
  },
  SBX_INTERNAL_ERROR: {
    http: 500,
    meaning: "A bug in the sandbox (or a throwing transform fault).",
  },
} as const satisfies Record<string, { http: number; meaning: string }>;

export type FailureCode = keyof typeof FAILURE_CODES;
