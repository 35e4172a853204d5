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
//                                                      {fault: "status-any-amount", transaction_uuid}
//                                                      {fault: "status-fails", times, how?}
//                                                      {fault: "status-slow", ms, times?}
//                                                      {fault: "status-hold"}
//                                                      {fault: "redirect-forged", times?}
//   POST   /_sandbox/faults/release                    held status checks answered, none held more
//   DELETE /_sandbox/faults                            every fault cleared (held checks released)
//   POST   /_sandbox/reset                             payments, requests and faults forgotten

import type { IncomingMessage, ServerResponse } from "node:http";
import { handleControl as control, type JsonObject, OK } from "../payment-fakes/control.js";
import { PaymentStateError, UnknownPaymentError } from "./payments.js";
import {
  ESEWA_STATUSES,
  type EsewaSandbox,
  type EsewaStatus,
  STATUS_FAILURES,
  type StatusFailure,
} from "./types.js";

export const CONTROL_PREFIX = "/_sandbox/";

const PAYMENT_ACTION = /^payments\/([^/]+)\/(pay|cancel|pending|status)$/;
const PAYMENT = /^payments\/([^/]+)$/;

export function handleControl(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  sandbox: EsewaSandbox,
): Promise<void> {
  return control(request, response, url, CONTROL_PREFIX, sandbox, {
    unknown: UnknownPaymentError,
    conflict: PaymentStateError,
    setFault: (body) => setFault(sandbox, body),
    own({ method, target, body, url }) {
      const action = method === "POST" ? PAYMENT_ACTION.exec(target) : null;
      if (action?.[1] && action[2]) {
        return act(sandbox, decodeURIComponent(action[1]), action[2], body);
      }
      const one = method === "GET" ? PAYMENT.exec(target) : null;
      if (one?.[1]) {
        const uuid = decodeURIComponent(one[1]);
        const payment = sandbox.payment(uuid);
        if (!payment) throw new UnknownPaymentError(uuid);
        return payment;
      }
      if (method === "GET" && target === "status-checks") {
        const uuid = url.searchParams.get("transaction_uuid") ?? undefined;
        return { count: sandbox.calls.statusChecks(uuid) };
      }
      if (method === "POST" && target === "faults/release") {
        sandbox.faults.releaseStatus();
        return OK;
      }
      return undefined;
    },
  });
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
  if (body.fault === "status-ambiguous" || body.fault === "status-any-amount") {
    if (typeof body.transaction_uuid !== "string") {
      throw new RangeError(`"transaction_uuid" must be a string`);
    }
    if (body.fault === "status-ambiguous") faults.statusAmbiguous(body.transaction_uuid);
    else faults.statusAnyAmount(body.transaction_uuid);
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
      `"fault" must be one of status-ambiguous, status-any-amount, status-fails, status-slow, status-hold, redirect-forged`,
    );
  }
}
