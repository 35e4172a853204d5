// createEsewaSandbox: an in-memory HTTP fake of eSewa ePay v2 (a redirect with a signed form)
// for tests and manual runs: the form endpoint, the buyer's payment page, the redirects with
// signed data, the status check, injected faults and a record of what it received. It knows
// nothing of the bot, and signs with code of its own (wire.ts), never the bot's.
//
//   const esewa = await createEsewaSandbox();        // EPAYTEST and eSewa's test secret key
//   // the buyer's browser posts the signed form (urlencoded) to esewa.formUrl
//   //   POST ${esewa.url}/api/epay/main/v2/form     → 302 to the payment page /pay/<uuid>
//   // and presses Pay, Cancel or Leave pending on it: a 302 to
//   //   success_url?data=<base64 JSON>   (Pay: transaction_code, status COMPLETE, total_amount
//   //                                     as eSewa writes it (1000.0), transaction_uuid,
//   //                                     product_code, signed_field_names, signature)
//   //   failure_url                      (Cancel: CANCELED; Leave pending: PENDING)
//   // the merchant asks
//   //   GET ${esewa.url}/api/epay/transaction/status/?product_code=&total_amount=&transaction_uuid=
//   //     → {product_code, transaction_uuid, total_amount, status, ref_id}
//   // createEsewaSandbox({ chatUrl }): every page leads "Back to Telegram" there (the
//   // playground's chat); its pages otherwise look like eSewa's, with a test-mode banner.
//   esewa.pay(uuid) / cancel(uuid) / leavePending(uuid)   the same without a browser
//   esewa.setStatus(uuid, "FULL_REFUND")                  eSewa's back office (any status)
//   esewa.payments() / payment(uuid)                      snapshots, with the form as posted
//   esewa.faults.statusAmbiguous(uuid) / statusAnyAmount(uuid) / statusFails(n, how) / statusSlow(ms, n?)
//   esewa.faults.holdStatus() / releaseStatus() / forgeRedirect(n?)
//   esewa.calls.requests / forms() / statusChecks(uuid?)
//   esewa.reset(); await esewa.close();
//
// What eSewa does and the sandbox copies: a missing field, an unknown product code ("Unable to
// fetch merchant key…") or a signature that does not verify over the form's own
// signed_field_names (it must name total_amount, transaction_uuid and product_code) is refused
// with HTTP 400 and `{"code": "ES104", "error_message": "Invalid payload signature"}` for the
// signature; so are amounts that are not rupees with at most two decimals or whose parts do not
// add up to total_amount. The status of a payment not made (the form posted, nothing paid), of
// an unknown transaction_uuid or of another total_amount is NOT_FOUND. eSewa publishes no expiry
// of a posted form: it stays payable however late (the bot cannot cancel it), unless
// `sessionSeconds` makes one left unpaid expire (NOT_FOUND, Pay refused). The same steering
// over HTTP: see control.ts (/_sandbox/).

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listen, sendJsonText } from "../payment-fakes/http.js";
import { type ApiContext, FORM_PATH, handleForm, handleStatus, STATUS_PATH } from "./api.js";
import { handlePage, matchPage } from "./buyer.js";
import { CONTROL_PREFIX, handleControl } from "./control.js";
import { FaultTable } from "./faults.js";
import { esewaLook, type RedirectSettings, redirectLocation } from "./page.js";
import { PaymentBook } from "./payments.js";
import {
  ESEWA_STATUSES,
  type EsewaPayment,
  type EsewaRequest,
  type EsewaSandbox,
  type EsewaSandboxOptions,
  TEST_PRODUCT_CODE,
  TEST_SECRET_KEY,
} from "./types.js";
import { esewaError } from "./wire.js";

export type {
  EsewaPayment,
  EsewaPaymentStatus,
  EsewaRequest,
  EsewaSandbox,
  EsewaSandboxOptions,
  EsewaStatus,
  StatusFailure,
} from "./types.js";
export { ESEWA_STATUSES, STATUS_FAILURES, TEST_PRODUCT_CODE, TEST_SECRET_KEY } from "./types.js";

function checkOptions(options: EsewaSandboxOptions): void {
  if (options.secretKey !== undefined && options.secretKey === "") {
    throw new RangeError("secretKey must not be empty");
  }
  const code = options.productCode;
  if (code !== undefined && !/^\S+$/.test(code)) {
    throw new RangeError("productCode must be non-empty, without whitespace");
  }
  const amounts = options.amountsAs;
  if (amounts !== undefined && amounts !== "number" && amounts !== "string") {
    throw new RangeError(`amountsAs must be "number" or "string", got ${amounts}`);
  }
  const session = options.sessionSeconds;
  if (session !== undefined && !(Number.isFinite(session) && session > 0)) {
    throw new RangeError(`sessionSeconds must be a positive number, got ${session}`);
  }
}

export async function createEsewaSandbox(options: EsewaSandboxOptions = {}): Promise<EsewaSandbox> {
  checkOptions(options);
  const host = options.host ?? "127.0.0.1";
  const now = options.now ?? (() => new Date());
  const settings: RedirectSettings = {
    secretKey: options.secretKey ?? TEST_SECRET_KEY,
    amountsAs: options.amountsAs ?? "number",
    failureData: options.failureData ?? false,
  };
  const faults = new FaultTable();
  const look = esewaLook(options.chatUrl);
  const book = new PaymentBook({
    now,
    ...(options.sessionSeconds !== undefined && { sessionMs: options.sessionSeconds * 1000 }),
    redirectFor: (payment) => {
      const carriesData = payment.status === "COMPLETE" || settings.failureData;
      return redirectLocation(payment, settings, carriesData && faults.takeForgery());
    },
  });
  const requests: EsewaRequest[] = [];
  // The origin (for the page's address) is known once listening, before any request arrives.
  const context: ApiContext = {
    secretKey: settings.secretKey,
    productCode: options.productCode ?? TEST_PRODUCT_CODE,
    origin: "",
    amountsAs: settings.amountsAs,
    book,
    faults,
    requests,
    now,
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://sandbox");
    const path = url.pathname;
    if (path.startsWith(CONTROL_PREFIX)) return handleControl(request, response, url, sandbox);
    if (path === FORM_PATH) return handleForm(request, response, context);
    if (path === STATUS_PATH) return handleStatus(request, response, url.searchParams, context);
    const page = matchPage(path);
    if (page) return handlePage(request, response, page, book, look);
    request.resume();
    sendJsonText(response, 404, esewaError(0, "Not found"));
  }

  const server = createServer((request, response) => {
    // A client that stopped waiting makes writes fail; that is not the sandbox's problem.
    response.on("error", () => {});
    handle(request, response).catch((error: unknown) => {
      if (request.destroyed) return;
      const message = error instanceof Error ? error.message : String(error);
      sendJsonText(response, 500, esewaError(0, `Sandbox error: ${message}`));
    });
  });

  const listening = await listen(server, host, options.port);
  const { origin } = listening;
  context.origin = origin;

  // Snapshots out, so a test cannot change the sandbox's state by accident.
  const snapshot = (payment: EsewaPayment) => structuredClone(payment);
  const noBrowser = { redirected: false };

  const sandbox: EsewaSandbox = {
    url: origin,
    formUrl: `${origin}${FORM_PATH}`,
    statusUrl: `${origin}${STATUS_PATH}`,
    productCode: context.productCode,
    payments: () => book.all().map(snapshot),
    payment: (uuid) => {
      const payment = book.find(uuid);
      return payment && snapshot(payment);
    },
    pay: (uuid) => snapshot(book.complete(uuid, noBrowser)),
    cancel: (uuid) => snapshot(book.cancel(uuid, noBrowser)),
    leavePending: (uuid) => snapshot(book.leavePending(uuid, noBrowser)),
    setStatus: (uuid, status) => {
      if (!ESEWA_STATUSES.includes(status)) {
        throw new RangeError(`status must be one of ${ESEWA_STATUSES.join(", ")}`);
      }
      return snapshot(book.setStatus(uuid, status));
    },
    faults,
    calls: {
      requests,
      forms: () => requests.filter((r) => r.endpoint === "form").map((r) => ({ ...r.fields })),
      statusChecks: (uuid) =>
        requests.filter(
          (r) => r.endpoint === "status" && (uuid === undefined || r.transactionUuid === uuid),
        ).length,
    },
    reset: () => {
      book.clear();
      faults.clear();
      requests.length = 0;
    },
    close: () => {
      faults.clear();
      return listening.close();
    },
  };
  return sandbox;
}
