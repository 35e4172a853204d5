// The merchant's side: initiate, lookup and refund, each behind the secret key, recorded
// before anything else happens so a test sees refused and failed calls too.

import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJson, readBody, sendHtml, sendJson } from "../payment-fakes/http.js";
import type { FaultTable } from "./faults.js";
import { paymentUrl } from "./page.js";
import type { PaymentBook } from "./payments.js";
import type { KhaltiEndpoint, KhaltiRequest } from "./types.js";
import { checkInitiate, checkLookup, isJsonObject, refundBody } from "./validate.js";
import {
  detail,
  INVALID_TOKEN,
  khaltiTime,
  lookupBody,
  lookupHttpStatus,
  NOT_FOUND,
  SERVER_ERROR_PAGE,
  validationError,
} from "./wire.js";

interface ApiRoute {
  endpoint: KhaltiEndpoint;
  /** A refund's transaction id, from its path. */
  transactionId?: string;
}

const REFUND_PATH = /^\/api\/merchant-transaction\/([^/]+)\/refund\/$/;

/** The route of an API path; Khalti's paths end with a slash and need it. */
export function matchApi(path: string): ApiRoute | undefined {
  if (path === "/api/v2/epayment/initiate/") return { endpoint: "initiate" };
  if (path === "/api/v2/epayment/lookup/") return { endpoint: "lookup" };
  const refund = REFUND_PATH.exec(path)?.[1];
  return refund === undefined
    ? undefined
    : { endpoint: "refund", transactionId: decodeURIComponent(refund) };
}

interface ApiContext {
  secretKey: string;
  origin: string;
  expiresInSeconds: number;
  book: PaymentBook;
  faults: FaultTable;
  requests: KhaltiRequest[];
  now: () => Date;
}

function keyOf(header: string | undefined): string | undefined {
  return /^Key\s+(\S+)\s*$/.exec(header ?? "")?.[1];
}

export async function handleApi(
  request: IncomingMessage,
  response: ServerResponse,
  route: ApiRoute,
  context: ApiContext,
): Promise<void> {
  if (request.method !== "POST") {
    return sendJson(response, 405, detail(`Method "${request.method}" not allowed.`));
  }
  const text = await readBody(request);
  const body = parseJson(text);
  const authorized = keyOf(request.headers.authorization) === context.secretKey;
  const value = body.valid ? body.value : undefined;
  const pidx = isJsonObject(value) && typeof value.pidx === "string" ? value.pidx : undefined;
  context.requests.push({
    endpoint: route.endpoint,
    body: body.valid ? body.value : text,
    authorized,
    ...(route.endpoint === "lookup" && pidx !== undefined ? { pidx } : {}),
    ...(route.transactionId === undefined ? {} : { transactionId: route.transactionId }),
    at: context.now(),
  });
  const answer = !authorized
    ? json(401, INVALID_TOKEN)
    : !body.valid
      ? json(400, detail(`JSON parse error - ${body.error}`))
      : answerFor(route, body.value, context);
  if (answer === "drop") request.socket.destroy();
  else if ("html" in answer) sendHtml(response, answer.status, answer.html);
  else sendJson(response, answer.status, answer.json);
}

/** What to send: JSON, an HTML page, or nothing at all (the connection dropped). */
type Answer = { status: number; json: unknown } | { status: number; html: string } | "drop";

const json = (status: number, value: unknown): Answer => ({ status, json: value });
const SERVER_ERROR: Answer = { status: 500, html: SERVER_ERROR_PAGE };

function answerFor(route: ApiRoute, body: unknown, context: ApiContext): Answer {
  switch (route.endpoint) {
    case "initiate":
      return initiate(body, context);
    case "lookup":
      return lookup(body, context);
    case "refund":
      return refund(route.transactionId ?? "", body, context);
  }
}

function initiate(body: unknown, context: ApiContext): Answer {
  const order = checkInitiate(body);
  if (!order.ok) return json(400, validationError(order.errors));
  const payment = context.book.initiate(order.value, body as Record<string, unknown>);
  return json(200, {
    pidx: payment.pidx,
    payment_url: paymentUrl(context.origin, payment.pidx),
    expires_at: khaltiTime(payment.expiresAt),
    expires_in: context.expiresInSeconds,
  });
}

function lookup(body: unknown, context: ApiContext): Answer {
  const failure = context.faults.takeLookupFailure();
  if (failure) return failure === "drop" ? "drop" : SERVER_ERROR;
  const pidx = checkLookup(body);
  if (!pidx.ok) return json(400, validationError(pidx.errors));
  const payment = context.book.find(pidx.value);
  if (!payment) return json(404, NOT_FOUND);
  const status = context.faults.isPending(payment.pidx) ? "Pending" : payment.status;
  return json(lookupHttpStatus(status), lookupBody(payment, status));
}

function refund(transactionId: string, body: unknown, context: ApiContext): Answer {
  const failure = context.faults.takeRefundFailure();
  const lost = failure?.how === "drop" ? "drop" : SERVER_ERROR;
  if (failure && !failure.afterEffect) return lost;
  const answer = performRefund(transactionId, body, context.book);
  // After the effect, the answer is what gets lost.
  return failure ? lost : answer;
}

function performRefund(transactionId: string, body: unknown, book: PaymentBook): Answer {
  const asked = refundBody(body);
  if ("error" in asked) return json(400, detail(asked.error));
  const outcome = book.refund(transactionId, asked);
  if (outcome.ok) return json(200, detail("Transaction refund successful."));
  // A bank payment refunded without the payer's mobile: Khalti's field error on `mobile`.
  if ("field" in outcome) return json(400, validationError({ [outcome.field]: [outcome.message] }));
  return json(400, detail(outcome.detail));
}
