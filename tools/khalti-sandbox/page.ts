// The buyer's side: the page payment_url opens, and where the browser goes after Pay or Cancel.
// Plain HTML forms, so a test can drive it with fetch and a person with any browser.

import type { KhaltiPayment } from "./types.js";

const PAGE_PREFIX = "/pay/";

export function paymentUrl(origin: string, pidx: string): string {
  return `${origin}${PAGE_PREFIX}${pidx}`;
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** 123456 paisa → NPR 1234.56 */
function rupees(paisa: number): string {
  return `NPR ${(paisa / 100).toFixed(2)}`;
}

function page(title: string, body: string): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><h1>Khalti sandbox</h1>${body}</body></html>`,
  ].join("\n");
}

/** The checkout page of an Initiated payment. */
export function checkoutPage(payment: KhaltiPayment): string {
  const action = `${PAGE_PREFIX}${encodeURIComponent(payment.pidx)}`;
  return page(
    `Pay ${payment.purchaseOrderName}`,
    [
      `<p class="order">${escapeHtml(payment.purchaseOrderName)}</p>`,
      `<p class="amount">${rupees(payment.amount)}</p>`,
      `<form method="post" action="${action}/confirm"><button type="submit">Pay</button></form>`,
      `<form method="post" action="${action}/cancel"><button type="submit">Cancel</button></form>`,
    ].join("\n"),
  );
}

/** Why the page of a payment that is no longer Initiated cannot be used, with its HTTP status. */
export function closedPage(payment: KhaltiPayment): { status: number; html: string } {
  if (payment.status === "Expired") {
    return { status: 410, html: page("Expired", "<p>This payment link has expired.</p>") };
  }
  const message = payment.status === "User canceled" ? "was canceled" : "has already been paid";
  return { status: 409, html: page("Closed", `<p>This payment ${message}.</p>`) };
}

export const UNKNOWN_PAGE = page("Not found", "<p>No such payment.</p>");

/**
 * Where the browser goes after Pay or Cancel: return_url with Khalti's query parameters. A
 * canceled payment has them all, the transaction ids and mobile empty. Spaces are written %20
 * ("User%20canceled"), which every query parser reads back.
 */
export function returnLocation(payment: KhaltiPayment): string {
  const location = new URL(payment.returnUrl);
  const transactionId = payment.transactionId ?? "";
  const parameters: [string, string][] = [
    ["pidx", payment.pidx],
    ["transaction_id", transactionId],
    ["tidx", transactionId],
    ["txnId", transactionId],
    ["amount", String(payment.amount)],
    ["total_amount", String(payment.totalAmount)],
    ["mobile", payment.mobile ?? ""],
    ["status", payment.status],
    ["purchase_order_id", payment.purchaseOrderId],
    ["purchase_order_name", payment.purchaseOrderName],
  ];
  for (const [name, value] of parameters) location.searchParams.set(name, value);
  // URLSearchParams writes a space as "+" and a literal "+" as "%2B", so this only touches spaces.
  location.search = location.searchParams.toString().replaceAll("+", "%20");
  return location.href;
}
