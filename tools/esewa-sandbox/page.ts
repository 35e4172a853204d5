// The buyer's side: the page the posted form leads to, and where the browser goes after Pay,
// Cancel or Leave pending. Plain HTML forms, no JavaScript, so a test can drive it with fetch
// and a person with any browser.

import { escapeHtml, htmlPage, notice, rupees, type SandboxLook } from "../payment-fakes/html.js";
import type { EsewaPayment } from "./types.js";
import {
  esewaAmount,
  type JsonValue,
  jsonText,
  REDIRECT_SIGNED_FIELD_NAMES,
  sign,
} from "./wire.js";

const PAGE_PREFIX = "/pay/";

export function pagePath(transactionUuid: string): string {
  return `${PAGE_PREFIX}${encodeURIComponent(transactionUuid)}`;
}

/** eSewa's green; "Back to Telegram" to `chatUrl` when given (the playground's chat). */
export const esewaLook = (chatUrl?: string): SandboxLook => ({
  name: "eSewa",
  colour: "#41a124",
  chatUrl,
});

/** The payment page of an INITIATED payment: the merchant, what is paid, the three buttons. */
export function checkoutPage(payment: EsewaPayment, look: SandboxLook): string {
  const action = pagePath(payment.transactionUuid);
  const lines: [string, string][] = [
    ["Amount", payment.amount],
    ["Tax", payment.taxAmount],
    ["Service charge", payment.productServiceCharge],
    ["Delivery charge", payment.productDeliveryCharge],
  ];
  const button = (path: string, label: string, kind = "") =>
    `<form method="post" action="${action}/${path}"><button type="submit"${kind}>${label}</button></form>`;
  return htmlPage(
    look,
    `Pay ${rupees(payment.totalPaisa)}`,
    [
      '<section class="merchant"><span class="label">Pay to</span>',
      `<b class="merchant-code">${escapeHtml(payment.productCode)}</b>`,
      `<span class="order transaction">Transaction ${escapeHtml(payment.transactionUuid)}</span>`,
      "</section>",
      "<table>",
      ...lines.map(([label, value]) => `<tr><th>${label}</th><td>${escapeHtml(value)}</td></tr>`),
      "</table>",
      `<p class="amount"><span class="amount-label">Total:</span> ${rupees(payment.totalPaisa)}</p>`,
      '<p class="wallet">Paid as the sandbox\'s test user: no eSewa ID, password or token needed.</p>',
      button("confirm", "Pay", ' class="pay"'),
      button("cancel", "Cancel"),
      button("pending", "Leave pending"),
    ].join("\n"),
  );
}

/** Why the page of a payment no longer INITIATED cannot be used, with its HTTP status. */
export function closedPage(
  payment: EsewaPayment,
  look: SandboxLook,
): { status: number; html: string } {
  switch (payment.status) {
    case "NOT_FOUND":
      return { status: 410, html: notice(look, "Expired", "This payment session has expired.") };
    case "CANCELED":
      return { status: 409, html: notice(look, "Closed", "This payment was canceled.") };
    case "PENDING":
    case "AMBIGUOUS":
      return { status: 409, html: notice(look, "Pending", "This payment is pending.") };
    default:
      return { status: 409, html: notice(look, "Closed", "This payment has already been paid.") };
  }
}

export const unknownPage = (look: SandboxLook) => notice(look, "Not found", "No such payment.");

export interface RedirectSettings {
  secretKey: string;
  amountsAs: "number" | "string";
  failureData: boolean;
}

/** The redirect's data, base64 of JSON written as eSewa writes it; `forged` signs it wrongly. */
function redirectData(payment: EsewaPayment, settings: RedirectSettings, forged: boolean): string {
  const totalAmount = esewaAmount(payment.totalPaisa);
  const signed: Record<string, string> = {
    transaction_code: payment.refId ?? "",
    status: payment.status,
    total_amount: totalAmount,
    transaction_uuid: payment.transactionUuid,
    product_code: payment.productCode,
    signed_field_names: REDIRECT_SIGNED_FIELD_NAMES,
  };
  const key = forged ? `${settings.secretKey}-not-the-key` : settings.secretKey;
  const signature = sign(key, signed, REDIRECT_SIGNED_FIELD_NAMES) ?? "";
  const amount: JsonValue = settings.amountsAs === "number" ? { raw: totalAmount } : totalAmount;
  const json = jsonText([
    ["transaction_code", signed.transaction_code ?? ""],
    ["status", payment.status],
    ["total_amount", amount],
    ["transaction_uuid", payment.transactionUuid],
    ["product_code", payment.productCode],
    ["signed_field_names", REDIRECT_SIGNED_FIELD_NAMES],
    ["signature", signature],
  ]);
  return Buffer.from(json, "utf8").toString("base64");
}

/**
 * `url` with `data=<base64>` appended to its query as eSewa appends it: raw, not
 * percent-encoded, so a `+` in it reaches a query parser as a `+` (which most read as a space).
 */
function withData(url: string, data: string): string {
  const target = new URL(url);
  const hash = target.hash;
  target.hash = "";
  return `${target.href}${target.search ? "&" : "?"}data=${data}${hash}`;
}

/**
 * Where eSewa sends the browser after the buyer's move: success_url with data once COMPLETE;
 * failure_url for CANCELED or PENDING (with data only under `failureData`).
 */
export function redirectLocation(
  payment: EsewaPayment,
  settings: RedirectSettings,
  forged: boolean,
): string {
  if (payment.status === "COMPLETE") {
    return withData(payment.successUrl, redirectData(payment, settings, forged));
  }
  if (!settings.failureData) return payment.failureUrl;
  return withData(payment.failureUrl, redirectData(payment, settings, forged));
}
