// The buyer's side: the page payment_url opens, and where the browser goes after Pay or Cancel.
// Plain HTML forms, so a test can drive it with fetch and a person with any browser.

import { escapeHtml, htmlPage, notice, rupees, type SandboxLook } from "../payment-fakes/html.js";
import type { KhaltiPayment } from "./types.js";

const PAGE_PREFIX = "/pay/";

export function paymentUrl(origin: string, pidx: string): string {
  return `${origin}${PAGE_PREFIX}${pidx}`;
}

/** Khalti's purple; "Back to Telegram" to `chatUrl` when given (the playground's chat). */
export const khaltiLook = (chatUrl?: string): SandboxLook => ({
  name: "Khalti",
  colour: "#5c2d91",
  chatUrl,
});

/** The checkout page of an Initiated payment: whom, what and how much, Pay and Cancel. */
export function checkoutPage(payment: KhaltiPayment, look: SandboxLook): string {
  const action = `${PAGE_PREFIX}${encodeURIComponent(payment.pidx)}`;
  return htmlPage(
    look,
    `Pay ${payment.purchaseOrderName}`,
    [
      '<section class="merchant"><span class="label">Pay to</span><b>Test merchant</b>',
      `<span class="order">${escapeHtml(payment.purchaseOrderName)}</span></section>`,
      `<p class="amount">${rupees(payment.amount)}</p>`,
      '<p class="wallet">Paid from the sandbox\'s test wallet: no Khalti ID or MPIN needed.</p>',
      `<form method="post" action="${action}/confirm"><button type="submit" class="pay">Pay</button></form>`,
      // A bank payment (e-banking) through the buyer's Khalti account.
      `<form method="post" action="${action}/confirm"><input type="hidden" name="paid_by" value="bank"><button type="submit">Pay by bank</button></form>`,
      `<form method="post" action="${action}/cancel"><button type="submit">Cancel</button></form>`,
    ].join("\n"),
  );
}

/** Why the page of a payment that is no longer Initiated cannot be used, with its HTTP status. */
export function closedPage(
  payment: KhaltiPayment,
  look: SandboxLook,
): { status: number; html: string } {
  if (payment.status === "Expired") {
    return { status: 410, html: notice(look, "Expired", "This payment link has expired.") };
  }
  const message =
    payment.status === "User canceled"
      ? "was canceled"
      : payment.status === "Failed"
        ? "has failed"
        : "has already been paid";
  return { status: 409, html: notice(look, "Closed", `This payment ${message}.`) };
}

export const unknownPage = (look: SandboxLook) => notice(look, "Not found", "No such payment.");

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
