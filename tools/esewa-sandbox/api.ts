// eSewa's two endpoints: the form the buyer's browser posts (checked, signature first, then a
// 302 to the payment page), and the status check (GET). Each request is recorded before
// anything else happens, so a test sees refused, failed and held ones too.

import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody, redirect, sendHtml, sendJsonText } from "../payment-fakes/http.js";
import type { FaultTable } from "./faults.js";
import { pagePath } from "./page.js";
import type { PaymentBook } from "./payments.js";
import type { EsewaRequest, EsewaStatus } from "./types.js";
import { checkForm, formFields, signatureValid } from "./validate.js";
import {
  esewaAmount,
  esewaError,
  type JsonValue,
  jsonText,
  paisaOf,
  SERVER_ERROR_PAGE,
  UNAVAILABLE,
} from "./wire.js";

export const FORM_PATH = "/api/epay/main/v2/form";
export const STATUS_PATH = "/api/epay/transaction/status/";

export interface ApiContext {
  secretKey: string;
  productCode: string;
  origin: string;
  amountsAs: "number" | "string";
  book: PaymentBook;
  faults: FaultTable;
  requests: EsewaRequest[];
  now: () => Date;
}

const METHOD_NOT_ALLOWED = esewaError(0, "Method not allowed");

export async function handleForm(
  request: IncomingMessage,
  response: ServerResponse,
  context: ApiContext,
): Promise<void> {
  const fields = formFields(await readBody(request));
  if (request.method !== "POST") return sendJsonText(response, 405, METHOD_NOT_ALLOWED);
  context.requests.push({
    endpoint: "form",
    fields,
    ...(fields.transaction_uuid === undefined ? {} : { transactionUuid: fields.transaction_uuid }),
    signatureValid: signatureValid(fields, context.secretKey),
    at: context.now(),
  });
  const checked = checkForm(fields, context);
  if (!checked.ok) return sendJsonText(response, 400, checked.body);
  const payment = context.book.submit(checked.order);
  if (!payment) {
    return sendJsonText(response, 400, esewaError(0, "This transaction_uuid has been used"));
  }
  redirect(response, `${context.origin}${pagePath(payment.transactionUuid)}`);
}

export async function handleStatus(
  request: IncomingMessage,
  response: ServerResponse,
  query: URLSearchParams,
  context: ApiContext,
): Promise<void> {
  await readBody(request);
  if (request.method !== "GET") return sendJsonText(response, 405, METHOD_NOT_ALLOWED);
  const fields = Object.fromEntries(query);
  const asked = {
    productCode: query.get("product_code") ?? "",
    totalAmount: query.get("total_amount") ?? "",
    transactionUuid: query.get("transaction_uuid") ?? "",
  };
  context.requests.push({
    endpoint: "status",
    fields,
    ...(query.has("transaction_uuid") ? { transactionUuid: asked.transactionUuid } : {}),
    at: context.now(),
  });
  await context.faults.delayStatus();
  const failure = context.faults.takeStatusFailure();
  if (failure === "drop") {
    request.socket.destroy();
    return;
  }
  if (failure === "http-500") return sendHtml(response, 500, SERVER_ERROR_PAGE);
  if (failure === "http-503") return sendJsonText(response, 503, esewaError(0, UNAVAILABLE));
  if (failure === "unavailable") return sendJsonText(response, 200, esewaError(0, UNAVAILABLE));

  const askedPaisa = paisaOf(asked.totalAmount);
  if (!asked.productCode || !asked.transactionUuid || askedPaisa === undefined) {
    const message = "product_code, total_amount (rupees) and transaction_uuid are required";
    return sendJsonText(response, 400, esewaError(0, message));
  }
  const payment = context.book.find(asked.transactionUuid);
  // eSewa matching the uuid alone (a fault): the payment's own amount is stated.
  const anyAmount = context.faults.answersAnyAmount(asked.transactionUuid);
  const matches =
    payment !== undefined &&
    payment.productCode === asked.productCode &&
    (payment.totalPaisa === askedPaisa || anyAmount);
  const status: EsewaStatus | typeof UNAVAILABLE =
    failure === "unavailable-status"
      ? UNAVAILABLE
      : !matches
        ? "NOT_FOUND"
        : context.faults.isAmbiguous(payment.transactionUuid)
          ? "AMBIGUOUS"
          : payment.status === "INITIATED"
            ? "NOT_FOUND"
            : payment.status;
  const amount = esewaAmount(anyAmount && payment ? payment.totalPaisa : askedPaisa);
  const total: JsonValue = context.amountsAs === "number" ? { raw: amount } : amount;
  const refId = matches && status !== "NOT_FOUND" ? payment.refId : null;
  const body = jsonText([
    ["product_code", asked.productCode],
    ["transaction_uuid", asked.transactionUuid],
    ["total_amount", total],
    ["status", status],
    ["ref_id", refId],
  ]);
  sendJsonText(response, 200, body);
}
