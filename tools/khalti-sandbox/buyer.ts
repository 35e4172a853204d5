// The buyer's requests: opening payment_url, then Pay or Cancel, each answered the way a
// browser follows (a page, or a 302 back to the merchant's return_url).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxLook } from "../payment-fakes/html.js";
import { readBody, redirect, sendHtml } from "../payment-fakes/http.js";
import { checkoutPage, closedPage, returnLocation, unknownPage } from "./page.js";
import type { PaymentBook } from "./payments.js";
import type { PayOptions } from "./types.js";

interface PageRoute {
  pidx: string;
  action: "view" | "confirm" | "cancel";
}

const PAGE_PATH = /^\/pay\/([^/]+)(?:\/(confirm|cancel))?\/?$/;

export function matchPage(path: string): PageRoute | undefined {
  const match = PAGE_PATH.exec(path);
  if (!match?.[1]) return undefined;
  const action = match[2] === "confirm" || match[2] === "cancel" ? match[2] : "view";
  return { pidx: decodeURIComponent(match[1]), action };
}

export async function handlePage(
  request: IncomingMessage,
  response: ServerResponse,
  route: PageRoute,
  book: PaymentBook,
  look: SandboxLook,
): Promise<void> {
  // The form's body may say how the buyer pays (paid_by, mobile, reveal_mobile: a browser of a
  // test's own); it must be read off the connection anyway.
  const form = new URLSearchParams(await readBody(request));
  const expected = route.action === "view" ? "GET" : "POST";
  if (request.method !== expected) return sendHtml(response, 405, "Method not allowed");
  const payment = book.find(route.pidx);
  if (!payment) return sendHtml(response, 404, unknownPage(look));
  if (payment.status !== "Initiated") {
    const closed = closedPage(payment, look);
    return sendHtml(response, closed.status, closed.html);
  }
  if (route.action === "view") return sendHtml(response, 200, checkoutPage(payment, look));
  const done =
    route.action === "confirm"
      ? book.complete(route.pidx, { ...payOptions(form), redirected: true })
      : book.cancel(route.pidx, { redirected: true });
  redirect(response, returnLocation(done));
}

/** How the Pay button's form says the buyer pays. */
function payOptions(form: URLSearchParams): PayOptions {
  const mobile = form.get("mobile");
  return {
    paidBy: form.get("paid_by") === "bank" ? "bank" : "wallet",
    ...(mobile ? { mobile } : {}),
    revealMobile: form.get("reveal_mobile") === "yes",
  };
}
