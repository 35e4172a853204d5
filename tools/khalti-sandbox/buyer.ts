// The buyer's requests: opening payment_url, then Pay or Cancel, each answered the way a
// browser follows (a page, or a 302 back to the merchant's return_url).

import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody, redirect, sendHtml } from "../payment-fakes/http.js";
import { checkoutPage, closedPage, returnLocation, UNKNOWN_PAGE } from "./page.js";
import type { PaymentBook } from "./payments.js";

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
): Promise<void> {
  // The form's body says nothing the path does not, but it must be read off the connection.
  await readBody(request);
  const expected = route.action === "view" ? "GET" : "POST";
  if (request.method !== expected) return sendHtml(response, 405, "Method not allowed");
  const payment = book.find(route.pidx);
  if (!payment) return sendHtml(response, 404, UNKNOWN_PAGE);
  if (payment.status !== "Initiated") {
    const closed = closedPage(payment);
    return sendHtml(response, closed.status, closed.html);
  }
  if (route.action === "view") return sendHtml(response, 200, checkoutPage(payment));
  const done =
    route.action === "confirm"
      ? book.complete(route.pidx, { redirected: true })
      : book.cancel(route.pidx, { redirected: true });
  redirect(response, returnLocation(done));
}
