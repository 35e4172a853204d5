// createKhaltiSandbox: an in-memory HTTP fake of Khalti's web checkout (ePayment, KPG-2) for
// tests and manual runs: the merchant API, the buyer's payment page, injected faults and a
// record of what it received. It knows nothing of the bot.
//
//   const khalti = await createKhaltiSandbox({ secretKey: "test-key" });
//   // the client under test calls, with `Authorization: Key test-key`:
//   //   POST ${khalti.url}/api/v2/epayment/initiate/   → {pidx, payment_url, expires_at, expires_in}
//   //   POST ${khalti.url}/api/v2/epayment/lookup/     → {pidx, total_amount, status, transaction_id, fee, refunded}
//   //   POST ${khalti.url}/api/merchant-transaction/<transaction_id>/refund/   → {detail}
//   // the buyer opens payment_url (GET /pay/<pidx>) and presses Pay or Cancel: a 302 back to
//   // return_url with pidx, status, transaction_id, tidx, txnId, amount, total_amount, mobile,
//   // purchase_order_id and purchase_order_name.
//   // createKhaltiSandbox({ ..., chatUrl }): every page leads "Back to Telegram" there (the
//   // playground's chat); its pages otherwise look like Khalti's, with a test-mode banner.
//   khalti.pay(pidx, { amount?, paidBy?, mobile?, revealMobile? })
//                                      paid, no redirect (a browser that never returns; a wrong
//                                      amount; a bank payment, refunded only with its mobile)
//   khalti.cancel(pidx) / expire(pidx) the buyer gives up / the link runs out, no redirect
//   khalti.fail(pidx)                  the payment fails (Failed, final), no redirect
//   khalti.refundOutside(pidx, { amount? })  a refund from the merchant's dashboard (Partially
//                                      Refunded, or Refunded)
//   khalti.payments() / payment(pidx)  snapshots, with what initiate received (initiatedWith)
//   khalti.faults.lookupPending(pidx)  lookups of it answer Pending until faults.clear()
//   khalti.faults.lookupFails(n, "http-500" | "drop")
//   khalti.faults.refundFails(n, { afterEffect?, how?: "http-500" | "drop" })
//   khalti.calls.requests / initiated() / lookups(pidx?) / refunds(transactionId?)
//   khalti.reset(); await khalti.close();
//
// What Khalti does and the sandbox copies: wrong or missing key → 401 {"detail":"Invalid
// token.","status_code":401}; field errors → 400 {<field>: [message], error_key:
// "validation_error"} (amount below 1000 paisa, not an integer, a missing field, a bad URL);
// lookup of an Expired or User canceled payment → HTTP 400 with the usual lookup body (read the
// status from the body, even on a 4xx); unknown pidx → 404 {"detail":"Not found.",...}; an
// Initiated payment past expires_in becomes Expired; a refund of a refunded, unpaid or unknown
// transaction → 400 {detail}; a refund of a bank payment without the payer's mobile (or with
// another) → 400 {mobile: [message], error_key: "validation_error"}; a lookup of a Failed
// payment → HTTP 400 like Expired. The page's Pay buttons pay from the wallet or by bank; a
// form field reveal_mobile=yes makes the redirect carry the mobile complete instead of masked.
// The same steering over HTTP: see control.ts (/_sandbox/).

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listen, sendJson } from "../payment-fakes/http.js";
import { handleApi, matchApi } from "./api.js";
import { handlePage, matchPage } from "./buyer.js";
import { CONTROL_PREFIX, handleControl } from "./control.js";
import { FaultTable } from "./faults.js";
import { khaltiLook } from "./page.js";
import { PaymentBook, PaymentStateError, UnknownPaymentError } from "./payments.js";
import type { KhaltiPayment, KhaltiRequest, KhaltiSandbox, KhaltiSandboxOptions } from "./types.js";
import { detail } from "./wire.js";

export type {
  KhaltiPayment,
  KhaltiRequest,
  KhaltiSandbox,
  KhaltiSandboxOptions,
  KhaltiStatus,
  LookupFailure,
  PayOptions,
} from "./types.js";
export { KHALTI_STATUSES } from "./types.js";

function checkAmount(amount: number | undefined): void {
  if (amount !== undefined && !(Number.isSafeInteger(amount) && amount > 0)) {
    throw new RangeError(`amount must be a positive integer of paisa, got ${amount}`);
  }
}

function checkOptions(options: KhaltiSandboxOptions): void {
  if (!/^\S+$/.test(options.secretKey)) {
    throw new RangeError("secretKey must be non-empty, without whitespace");
  }
  const seconds = options.expiresInSeconds;
  if (seconds !== undefined && !(Number.isInteger(seconds) && seconds > 0)) {
    throw new RangeError(`expiresInSeconds must be a positive integer, got ${seconds}`);
  }
  const rate = options.feeRate;
  if (rate !== undefined && !(rate >= 0 && rate < 1)) {
    throw new RangeError(`feeRate must be in [0, 1), got ${rate}`);
  }
}

export async function createKhaltiSandbox(options: KhaltiSandboxOptions): Promise<KhaltiSandbox> {
  checkOptions(options);
  const host = options.host ?? "127.0.0.1";
  const expiresInSeconds = options.expiresInSeconds ?? 1800;
  const now = options.now ?? (() => new Date());
  const book = new PaymentBook({
    now,
    expiresInMs: expiresInSeconds * 1000,
    feeRate: options.feeRate ?? 0.03,
  });
  const faults = new FaultTable();
  const look = khaltiLook(options.chatUrl);
  const requests: KhaltiRequest[] = [];
  // The origin (for payment_url) is known once listening, before any request arrives.
  const apiContext = {
    secretKey: options.secretKey,
    origin: "",
    expiresInSeconds,
    book,
    faults,
    requests,
    now,
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://sandbox");
    const path = url.pathname;
    if (path.startsWith(CONTROL_PREFIX)) return handleControl(request, response, url, sandbox);
    const page = matchPage(path);
    if (page) return handlePage(request, response, page, book, look);
    const api = matchApi(path);
    if (api) return handleApi(request, response, api, apiContext);
    sendJson(response, 404, detail("Not found."));
  }

  const server = createServer((request, response) => {
    // A client that stopped waiting makes writes fail; that is not the sandbox's problem.
    response.on("error", () => {});
    handle(request, response).catch((error: unknown) => {
      if (request.destroyed) return;
      const message = error instanceof Error ? error.message : String(error);
      sendJson(response, 500, detail(`Sandbox error: ${message}`));
    });
  });

  const listening = await listen(server, host, options.port);
  const { origin } = listening;
  apiContext.origin = origin;

  // Snapshots out, so a test cannot change the sandbox's state by accident.
  const snapshot = (payment: KhaltiPayment) => structuredClone(payment);
  const count = (predicate: (request: KhaltiRequest) => boolean) =>
    requests.filter(predicate).length;

  const sandbox: KhaltiSandbox = {
    url: origin,
    payments: () => book.all().map(snapshot),
    payment: (pidx) => {
      const payment = book.find(pidx);
      return payment && snapshot(payment);
    },
    pay: (pidx, how = {}) => {
      checkAmount(how.amount);
      return snapshot(book.complete(pidx, { ...how, redirected: false }));
    },
    cancel: (pidx) => snapshot(book.cancel(pidx, { redirected: false })),
    expire: (pidx) => snapshot(book.expire(pidx)),
    fail: (pidx) => snapshot(book.fail(pidx)),
    refundOutside: (pidx, { amount } = {}) => {
      checkAmount(amount);
      const payment = book.find(pidx);
      if (!payment) throw new UnknownPaymentError(pidx);
      const refunded = book.refund(payment.transactionId ?? "", {
        amount,
        mobile: undefined,
        outside: true,
      });
      if (!refunded.ok) {
        const why = "detail" in refunded ? refunded.detail : refunded.message;
        throw new PaymentStateError(payment, `Cannot refund ${pidx}: ${why}`);
      }
      return snapshot(refunded.payment);
    },
    faults,
    calls: {
      requests,
      initiated: () => requests.filter((r) => r.endpoint === "initiate").map((r) => r.body),
      lookups: (pidx) => count((r) => r.endpoint === "lookup" && (!pidx || r.pidx === pidx)),
      refunds: (transactionId) =>
        count(
          (r) => r.endpoint === "refund" && (!transactionId || r.transactionId === transactionId),
        ),
    },
    reset: () => {
      book.clear();
      faults.clear();
      requests.length = 0;
    },
    close: () => listening.close(),
  };
  return sandbox;
}
