// The unauthenticated control API under /_sandbox/, so another process (a playground, a
// manual test, the bot's end-to-end run) can steer a running sandbox the way the handle does.
//
//   GET    /_sandbox/payments                    every payment (KhaltiPayment, dates as ISO)
//   GET    /_sandbox/requests                    every API request received
//   POST   /_sandbox/payments/<pidx>/pay         {amount?, paidBy?, mobile?, revealMobile?}: paid,
//                                                no redirect
//   POST   /_sandbox/payments/<pidx>/cancel      canceled, no redirect
//   POST   /_sandbox/payments/<pidx>/expire      expired now
//   POST   /_sandbox/payments/<pidx>/fail        failed (final), no redirect
//   POST   /_sandbox/payments/<pidx>/refund      {amount?}: refunded from the dashboard
//   POST   /_sandbox/faults                      {fault: "lookup-pending", pidx}
//                                                {fault: "lookup-fails", times, how?: "http-500" | "drop"}
//                                                {fault: "refund-fails", times, afterEffect?,
//                                                 how?: "http-500" | "drop"}
//   DELETE /_sandbox/faults                      every fault cleared
//   POST   /_sandbox/reset                       payments, requests and faults forgotten

import type { IncomingMessage, ServerResponse } from "node:http";
import { handleControl as control } from "../payment-fakes/control.js";
import { PaymentStateError, UnknownPaymentError } from "./payments.js";
import type { KhaltiSandbox, LookupFailure } from "./types.js";
import type { JsonObject } from "./validate.js";

export const CONTROL_PREFIX = "/_sandbox/";

const PAYMENT_ACTION = /^payments\/([^/]+)\/(pay|cancel|expire|fail|refund)$/;

export function handleControl(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  sandbox: KhaltiSandbox,
): Promise<void> {
  return control(request, response, url, CONTROL_PREFIX, sandbox, {
    unknown: UnknownPaymentError,
    conflict: PaymentStateError,
    setFault: (body) => setFault(sandbox, body),
    own({ method, target, body }) {
      const action = method === "POST" ? PAYMENT_ACTION.exec(target) : null;
      if (!action?.[1] || !action[2]) return undefined;
      return act(sandbox, decodeURIComponent(action[1]), action[2], body);
    },
  });
}

function act(sandbox: KhaltiSandbox, pidx: string, action: string, body: JsonObject) {
  if (action === "cancel") return sandbox.cancel(pidx);
  if (action === "expire") return sandbox.expire(pidx);
  if (action === "fail") return sandbox.fail(pidx);
  const amount = body.amount;
  if (amount !== undefined && typeof amount !== "number") {
    throw new RangeError(`"amount" must be a number of paisa`);
  }
  if (action === "refund")
    return sandbox.refundOutside(pidx, amount === undefined ? {} : { amount });
  const { paidBy, mobile, revealMobile } = body;
  if (paidBy !== undefined && paidBy !== "wallet" && paidBy !== "bank") {
    throw new RangeError(`"paidBy" must be "wallet" or "bank"`);
  }
  if (mobile !== undefined && typeof mobile !== "string") {
    throw new RangeError(`"mobile" must be a string`);
  }
  return sandbox.pay(pidx, {
    ...(amount !== undefined && { amount }),
    ...(paidBy !== undefined && { paidBy }),
    ...(mobile !== undefined && { mobile }),
    revealMobile: revealMobile === true,
  });
}

function times(body: JsonObject): number {
  if (typeof body.times !== "number") throw new RangeError(`"times" must be a number`);
  return body.times;
}

function setFault(sandbox: KhaltiSandbox, body: JsonObject): void {
  const { faults } = sandbox;
  if (body.fault === "lookup-pending") {
    if (typeof body.pidx !== "string") throw new RangeError(`"pidx" must be a string`);
    faults.lookupPending(body.pidx);
  } else if (body.fault === "lookup-fails") {
    faults.lookupFails(times(body), (body.how ?? "http-500") as LookupFailure);
  } else if (body.fault === "refund-fails") {
    if (body.afterEffect !== undefined && typeof body.afterEffect !== "boolean") {
      throw new RangeError(`"afterEffect" must be a boolean`);
    }
    faults.refundFails(times(body), {
      afterEffect: body.afterEffect ?? false,
      how: (body.how ?? "http-500") as LookupFailure,
    });
  } else {
    throw new RangeError(`"fault" must be one of lookup-pending, lookup-fails, refund-fails`);
  }
}
