// The buyer's requests: the payment page the form leads to, then Pay, Cancel or Leave pending,
// each answered the way a browser follows (a page, or a 302 to success_url or failure_url).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxLook } from "../payment-fakes/html.js";
import { readBody, redirect, sendHtml } from "../payment-fakes/http.js";
import { checkoutPage, closedPage, unknownPage } from "./page.js";
import type { PaymentBook } from "./payments.js";

type PageAction = "view" | "confirm" | "cancel" | "pending";

interface PageRoute {
  transactionUuid: string;
  action: PageAction;
}

const PAGE_PATH = /^\/pay\/([^/]+)(?:\/(confirm|cancel|pending))?\/?$/;

export function matchPage(path: string): PageRoute | undefined {
  const match = PAGE_PATH.exec(path);
  if (!match?.[1]) return undefined;
  return {
    transactionUuid: decodeURIComponent(match[1]),
    action: (match[2] ?? "view") as PageAction,
  };
}

export async function handlePage(
  request: IncomingMessage,
  response: ServerResponse,
  route: PageRoute,
  book: PaymentBook,
  look: SandboxLook,
): Promise<void> {
  // The buttons' bodies say nothing the path does not, but they must be read off the connection.
  await readBody(request);
  const expected = route.action === "view" ? "GET" : "POST";
  if (request.method !== expected) return sendHtml(response, 405, "Method not allowed");
  const payment = book.find(route.transactionUuid);
  if (!payment) return sendHtml(response, 404, unknownPage(look));
  if (payment.status !== "INITIATED") {
    const closed = closedPage(payment, look);
    return sendHtml(response, closed.status, closed.html);
  }
  if (route.action === "view") return sendHtml(response, 200, checkoutPage(payment, look));
  const how = { redirected: true };
  const done =
    route.action === "confirm"
      ? book.complete(route.transactionUuid, how)
      : route.action === "cancel"
        ? book.cancel(route.transactionUuid, how)
        : book.leavePending(route.transactionUuid, how);
  redirect(response, done.redirectUrl ?? done.failureUrl);
}
