// The unauthenticated control API under /_sandbox/, so another process (a playground, a
// manual test, the bot's end-to-end run) can steer a running sandbox the way the handle does.
//
//   GET    /_sandbox/payments                          every payment (EsewaPayment, dates as ISO)
//   GET    /_sandbox/payments/<uuid>                   one payment (404 when unknown)
//   GET    /_sandbox/requests                          every form and status request received
//   GET    /_sandbox/status-checks[?transaction_uuid=] {count}: status checks received
//   POST   /_sandbox/payments/<uuid>/pay               COMPLETE, no redirect
//   POST   /_sandbox/payments/<uuid>/cancel            CANCELED, no redirect
//   POST   /_sandbox/payments/<uuid>/pending           PENDING, no redirect
//   POST   /_sandbox/payments/<uuid>/status            {status}: reads it from now on (FULL_REFUND...)
//   POST   /_sandbox/faults                            {fault: "status-ambiguous", transaction_uuid}
//                                                      {fault: "status-fails", times, how?}
//                                                      {fault: "status-slow", ms, times?}
//                                                      {fault: "status-hold"}
//                                                      {fault: "redirect-forged", times?}
//   POST   /_sandbox/faults/release                    held status checks answered, none held more
//   DELETE /_sandbox/faults                            every fault cleared (held checks released)
//   POST   /_sandbox/reset                             payments, requests and faults forgotten
//
// Every answer is JSON; a refused one is {detail} with 400 (a bad body), 404 (unknown) or 409
// (a payment in a state that does not allow it).

import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJson, readBody, sendJson } from "../payment-fakes/http.js";
import { PaymentStateError, UnknownPaymentError } from "./payments.js";
import {
  ESEWA_STATUSES,
  type EsewaSandbox,
  type EsewaStatus,
  STATUS_FAILURES,
  type StatusFailure,
} from "./types.js";

export const CONTROL_PREFIX = "/_sandbox/";

type JsonObject = Record<string, unknown>;

const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const detail = (message: string) => ({ detail: message });
const OK = detail("OK");
const PAYMENT_ACTION = /^payments\/([^/]+)\/(pay|cancel|pending|status)$/;
const PAYMENT = /^payments\/([^/]+)$/;

export async function handleControl(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  sandbox: EsewaSandbox,
): Promise<void> {
  const parsed = parseJson(await readBody(request));
  const body: JsonObject = parsed.valid && isJsonObject(parsed.value) ? parsed.value : {};
  const target = url.pathname.slice(CONTROL_PREFIX.length).replace(/\/$/, "");
  try {
    const action = request.method === "POST" ? PAYMENT_ACTION.exec(target) : null;
    if (action?.[1] && action[2]) {
      const uuid = decodeURIComponent(action[1]);
      return sendJson(response, 200, act(sandbox, uuid, action[2], body));
    }
    const one = request.method === "GET" ? PAYMENT.exec(target) : null;
    if (one?.[1]) {
      const payment = sandbox.payment(decodeURIComponent(one[1]));
      if (!payment) return sendJson(response, 404, detail("Unknown transaction_uuid"));
      return sendJson(response, 200, payment);
    }
    switch (`${request.method} ${target}`) {
      case "GET payments":
        return sendJson(response, 200, sandbox.payments());
      case "GET requests":
        return sendJson(response, 200, sandbox.calls.requests);
      case "GET status-checks": {
        const uuid = url.searchParams.get("transaction_uuid") ?? undefined;
        return sendJson(response, 200, { count: sandbox.calls.statusChecks(uuid) });
      }
      case "POST faults":
        setFault(sandbox, body);
        return sendJson(response, 200, OK);
      case "POST faults/release":
        sandbox.faults.releaseStatus();
        return sendJson(response, 200, OK);
      case "DELETE faults":
        sandbox.faults.clear();
        return sendJson(response, 200, OK);
      case "POST reset":
        sandbox.reset();
        return sendJson(response, 200, OK);
      default:
        return sendJson(response, 404, detail(`No control route ${request.method} ${target}`));
    }
  } catch (error) {
    if (error instanceof UnknownPaymentError) return sendJson(response, 404, detail(error.message));
    if (error instanceof PaymentStateError) return sendJson(response, 409, detail(error.message));
    if (error instanceof RangeError) return sendJson(response, 400, detail(error.message));
    throw error;
  }
}

function act(sandbox: EsewaSandbox, uuid: string, action: string, body: JsonObject) {
  if (action === "pay") return sandbox.pay(uuid);
  if (action === "cancel") return sandbox.cancel(uuid);
  if (action === "pending") return sandbox.leavePending(uuid);
  const status = body.status;
  if (!ESEWA_STATUSES.includes(status as EsewaStatus)) {
    throw new RangeError(`"status" must be one of ${ESEWA_STATUSES.join(", ")}`);
  }
  return sandbox.setStatus(uuid, status as EsewaStatus);
}

function numberField(body: JsonObject, name: string, optional: boolean): number | undefined {
  const value = body[name];
  if (value === undefined && optional) return undefined;
  if (typeof value !== "number") throw new RangeError(`"${name}" must be a number`);
  return value;
}

function setFault(sandbox: EsewaSandbox, body: JsonObject): void {
  const { faults } = sandbox;
  if (body.fault === "status-ambiguous") {
    if (typeof body.transaction_uuid !== "string") {
      throw new RangeError(`"transaction_uuid" must be a string`);
    }
    faults.statusAmbiguous(body.transaction_uuid);
  } else if (body.fault === "status-fails") {
    const how = body.how ?? "http-500";
    if (!STATUS_FAILURES.includes(how as StatusFailure)) {
      throw new RangeError(`"how" must be one of ${STATUS_FAILURES.join(", ")}`);
    }
    faults.statusFails(numberField(body, "times", false) ?? 0, how as StatusFailure);
  } else if (body.fault === "status-slow") {
    faults.statusSlow(numberField(body, "ms", false) ?? 0, numberField(body, "times", true));
  } else if (body.fault === "status-hold") {
    faults.holdStatus();
  } else if (body.fault === "redirect-forged") {
    faults.forgeRedirect(numberField(body, "times", true));
  } else {
    throw new RangeError(
      `"fault" must be one of status-ambiguous, status-fails, status-slow, status-hold, redirect-forged`,
    );
  }
}
