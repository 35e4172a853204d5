// The unauthenticated control API under /_sandbox/, so another process (a playground, a
// manual test) can inspect and steer a running sandbox the way in-process tests do.

import type { IncomingMessage, ServerResponse } from "node:http";
import { parseFaultRequest } from "./faults.js";
import { parseJson, readBody, sendJson } from "./http.js";
import { SANDBOX_PROFILES, type Sandbox } from "./types.js";
import { isJsonObject, RequestError } from "./validate.js";
import { fail } from "./wire.js";

export const CONTROL_PREFIX = "/_sandbox/";

const OK = { success: true, message: "OK" };

export async function handleControl(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  sandbox: Sandbox,
): Promise<void> {
  const route = `${request.method} ${path.slice(CONTROL_PREFIX.length).replace(/\/$/, "")}`;
  switch (route) {
    case "GET directory":
      return sendJson(response, 200, sandbox.directory());
    case "GET topups":
      return sendJson(response, 200, sandbox.topups);
    case "GET requests":
      return sendJson(response, 200, sandbox.requests);
    case "POST faults":
      return setFault(request, response, sandbox);
    case "DELETE faults":
      sandbox.clearFaults();
      return sendJson(response, 200, OK);
    case "POST reset":
      sandbox.reset();
      return sendJson(response, 200, OK);
    case "GET profile":
      return sendJson(response, 200, { profile: sandbox.profile });
    case "POST profile":
      return setProfile(request, response, sandbox);
    default:
      return sendJson(response, 404, fail("SBX_ROUTE_NOT_FOUND", `No control route ${route}`));
  }
}

async function setProfile(request: IncomingMessage, response: ServerResponse, sandbox: Sandbox) {
  const body = parseJson(await readBody(request));
  const wanted = body.valid && isJsonObject(body.value) ? body.value.profile : undefined;
  const profile = SANDBOX_PROFILES.find((name) => name === wanted);
  if (!profile) {
    const message = `"profile" must be one of ${SANDBOX_PROFILES.join(", ")}`;
    return sendJson(response, 400, fail("SBX_INVALID_FIELD", message));
  }
  sandbox.profile = profile;
  sendJson(response, 200, OK);
}

async function setFault(request: IncomingMessage, response: ServerResponse, sandbox: Sandbox) {
  const body = parseJson(await readBody(request));
  try {
    if (!body.valid) throw new RequestError("SBX_INVALID_JSON", "The request body is not JSON");
    const { operation, fault } = parseFaultRequest(body.value);
    sandbox.setFault(operation, fault);
    sendJson(response, 200, OK);
  } catch (error) {
    if (error instanceof RequestError) {
      return sendJson(response, 400, fail(error.code, error.message));
    }
    if (error instanceof RangeError) {
      return sendJson(response, 400, fail("SBX_INVALID_FIELD", error.message));
    }
    throw error;
  }
}
