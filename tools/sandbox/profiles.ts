// How the sandbox speaks. `strict` answers as the spec's samples do, with the sandbox's own
// SBX_ failure codes. `foreign` answers the same business outcomes the way another provider
// might: other codes and messages (some empty, some missing), failures on HTTP 200, 400, 404,
// 409, 422 and 500, HTML error pages, ISO 8601 dates with an offset, amounts as strings,
// unknown extra fields and missing optional ones. The operations never know which is spoken:
// every answer passes through `speak` on its way out.

import { DateTime } from "luxon";
import type { FailureCode } from "./codes.js";
import type { OperationResult } from "./operations.js";
import type { SandboxOperation, SandboxProfile } from "./types.js";
import type { ProviderResponse } from "./wire.js";

/** One answer as it goes on the wire. */
export interface WireAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** How the foreign provider refuses: `message: null` leaves the field out. */
interface ForeignFailure {
  http: number;
  code: string;
  message: string | null;
  /** Sent as a gateway's HTML page instead of JSON. */
  html?: true;
  /** Leaves `body` out. */
  bare?: true;
}

/** The foreign refusals, one per failure the sandbox knows (docs/development.md lists them). */
export const FOREIGN_FAILURES: Record<FailureCode, ForeignFailure> = {
  SBX_ROUTE_NOT_FOUND: { http: 404, code: "", message: null, html: true },
  SBX_UNAUTHORIZED: { http: 401, code: "", message: null, html: true },
  SBX_INVALID_JSON: { http: 400, code: "E400-01", message: "Malformed request" },
  SBX_INVALID_FIELD: { http: 400, code: "E400-02", message: "Validation failed" },
  SBX_CUSTOMER_NOT_FOUND: { http: 404, code: "1004", message: "" },
  SBX_CONNECTION_NOT_FOUND: { http: 404, code: "1005", message: null, bare: true },
  SBX_CHECKOUT_UNKNOWN: { http: 409, code: "ORD-409-1", message: "Order reference not recognised" },
  SBX_CHECKOUT_USED: { http: 409, code: "ORD-409-2", message: "Duplicate order" },
  SBX_CHECKOUT_EXPIRED: { http: 409, code: "ORD-409-3", message: "Order reference timed out" },
  SBX_CHECKOUT_MISMATCH: { http: 409, code: "ORD-409-4", message: "" },
  SBX_BOUQUET_NOT_OFFERED: { http: 422, code: "PKG-422", message: "Package not available" },
  SBX_AMOUNT_INVALID: { http: 422, code: "AMT-422-1", message: null },
  SBX_AMOUNT_MISMATCH: { http: 422, code: "AMT-422-2", message: "Amount differs" },
  SBX_UDF_TOO_LONG: { http: 400, code: "E400-03", message: "Reference too long" },
  SBX_TXN_NOT_FOUND: { http: 200, code: "TXN-0", message: null, bare: true },
  SBX_INTERNAL_ERROR: { http: 500, code: "", message: null, html: true },
};

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  409: "Conflict",
  422: "Unprocessable Entity",
  500: "Internal Server Error",
  502: "Bad Gateway",
};

/** What a gateway in front of a provider sends when it fails. */
export function htmlPage(status: number): WireAnswer {
  const title = `${status} ${REASONS[status] ?? "Error"}`;
  return {
    status,
    contentType: "text/html",
    text: `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  };
}

const json = (status: number, value: unknown): WireAnswer => ({
  status,
  contentType: "application/json; charset=utf-8",
  text: JSON.stringify(value),
});

export function speak(
  profile: SandboxProfile,
  operation: SandboxOperation | undefined,
  result: OperationResult,
  zone: string,
): WireAnswer {
  if (profile === "strict") return json(result.status, result.response);
  const extras = { requestId: `req-${Math.random().toString(36).slice(2, 10)}`, timestamp: now() };
  if (!result.response.success) {
    const failure = FOREIGN_FAILURES[result.response.code as FailureCode];
    if (!failure) return json(result.status, { ...result.response, ...extras });
    if (failure.html) return htmlPage(failure.http);
    return json(failure.http, {
      success: false,
      code: failure.code,
      ...(failure.message !== null && { message: failure.message }),
      ...(!failure.bare && { body: {} }),
      ...extras,
    });
  }
  const body = operation ? foreignBody(operation, result.response.body, zone) : {};
  return json(result.status, { ...result.response, message: "", body, ...extras });
}

const now = () => new Date().toISOString();

/** "YYYY-MM-DD HH:MM:SS" in the sandbox's zone, re-said as ISO 8601 with the zone's offset. */
function isoDate(value: unknown, zone: string): unknown {
  if (typeof value !== "string") return value;
  const parsed = DateTime.fromFormat(value, "yyyy-MM-dd HH:mm:ss", { zone });
  return parsed.isValid ? parsed.toISO({ suppressMilliseconds: true }) : value;
}

/** Amounts as strings with two decimals, as many gateways send them. */
const money = (value: unknown) => (typeof value === "number" ? value.toFixed(2) : value);

type Json = Record<string, unknown>;

function foreignBody(operation: SandboxOperation, body: Json, zone: string): Json {
  const copy = structuredClone(body);
  switch (operation) {
    case "get-customer-information": {
      const customer = copy.customer as Json;
      customer.loyalty = { tier: "silver", since: "2021" };
      customer.email = null;
      for (const lists of [customer.connections, copy.connection] as (Json | undefined)[]) {
        // Missing optional lists: no empty IPTV list.
        if (lists && Array.isArray(lists.iptv) && lists.iptv.length === 0) delete lists.iptv;
      }
      return copy;
    }
    case "get-subscription-package": {
      copy.currency = "NPR";
      for (const value of Object.values(copy)) {
        const block = value as Json;
        if (!Array.isArray(block?.bouquets)) continue;
        for (const bouquet of block.bouquets as Json[]) {
          for (const field of ["price", "amt"]) {
            if (field in bouquet) bouquet[field] = money(bouquet[field]);
          }
          bouquet.description = "";
          bouquet.channels = 42;
        }
        for (const subscription of block.subscriptions as Json[]) {
          delete subscription.startdate;
          subscription.enddate = isoDate(subscription.enddate, zone);
          subscription.autoRenew = false;
        }
      }
      return copy;
    }
    case "subscription-package-topup":
    case "txn-status": {
      const result = copy.result as Json;
      result.amt = money(result.amt);
      result.txnDate = isoDate(result.txnDate, zone);
      result.currency = "NPR";
      result.channel = "API";
      delete result.service;
      return copy;
    }
  }
}

/** The answer of a `reject` fault: the code and message as given, the status per profile. */
export function rejection(
  profile: SandboxProfile,
  fault: { code: string; message?: string; status?: number; html?: boolean },
): WireAnswer {
  const status = fault.status ?? (profile === "foreign" ? 409 : 200);
  if (fault.html) return htmlPage(status);
  const response: ProviderResponse = {
    success: false,
    code: fault.code,
    message: fault.message ?? "Rejected by a sandbox fault",
    body: {},
  };
  return json(status, response);
}
