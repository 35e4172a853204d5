// The buyer's side: the page payment_url opens, and where the browser goes after Pay or Cancel.
// Plain HTML forms, so a test can drive it with fetch and a person with any browser.

import { escapeHtml, htmlPage, rupees } from "../payment-fakes/html.js";
import type { KhaltiPayment } from "./types.js";

const PAGE_PREFIX = "/pay/";

export function paymentUrl(origin: string, pidx: string): string {
  return `${origin}${PAGE_PREFIX}${pidx}`;
}

const page = (title: string, body: string) => htmlPage("Khalti sandbox", title, body);

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
