// The unauthenticated control API under /_sandbox/, so another process (a playground, a
// manual test, the bot's end-to-end run) can steer a running sandbox the way the handle does.
//
//   GET    /_sandbox/payments                    every payment (KhaltiPayment, dates as ISO)
//   GET    /_sandbox/requests                    every API request received
//   POST   /_sandbox/payments/<pidx>/pay         {amount?}: paid, no redirect
//   POST   /_sandbox/payments/<pidx>/cancel      canceled, no redirect
//   POST   /_sandbox/payments/<pidx>/expire      expired now
//   POST   /_sandbox/faults                      {fault: "lookup-pending", pidx}
//                                                {fault: "lookup-fails", times, how?: "http-500" | "drop"}
//                                                {fault: "refund-fails", times, afterEffect?}
//   DELETE /_sandbox/faults                      every fault cleared
//   POST   /_sandbox/reset                       payments, requests and faults forgotten

import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJson, readBody, sendJson } from "../payment-fakes/http.js";
import { PaymentStateError, UnknownPaymentError } from "./payments.js";
import type { KhaltiSandbox, LookupFailure } from "./types.js";
import { isJsonObject, type JsonObject } from "./validate.js";
import { detail } from "./wire.js";

export const CONTROL_PREFIX = "/_sandbox/";

const OK = detail("OK");
const PAYMENT_ACTION = /^payments\/([^/]+)\/(pay|cancel|expire)$/;

export async function handleControl(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  sandbox: KhaltiSandbox,
): Promise<void> {
  const parsed = parseJson(await readBody(request));
  const body: JsonObject = parsed.valid && isJsonObject(parsed.value) ? parsed.value : {};
  const target = path.slice(CONTROL_PREFIX.length).replace(/\/$/, "");
  try {
    const action = request.method === "POST" ? PAYMENT_ACTION.exec(target) : null;
    if (action?.[1] && action[2]) {
      return sendJson(response, 200, act(sandbox, decodeURIComponent(action[1]), action[2], body));
    }
    switch (`${request.method} ${target}`) {
      case "GET payments":
        return sendJson(response, 200, sandbox.payments());
      case "GET requests":
        return sendJson(response, 200, sandbox.calls.requests);
      case "POST faults":
        setFault(sandbox, body);
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

function act(sandbox: KhaltiSandbox, pidx: string, action: string, body: JsonObject) {
  if (action === "cancel") return sandbox.cancel(pidx);
  if (action === "expire") return sandbox.expire(pidx);
  const amount = body.amount;
  if (amount !== undefined && typeof amount !== "number") {
    throw new RangeError(`"amount" must be a number of paisa`);
  }
  return sandbox.pay(pidx, amount === undefined ? {} : { amount });
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
    faults.refundFails(times(body), { afterEffect: body.afterEffect ?? false });
  } else {
    throw new RangeError(`"fault" must be one of lookup-pending, lookup-fails, refund-fails`);
  }
}
