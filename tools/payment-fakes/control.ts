// What the payment sandboxes' control APIs (/_sandbox/…) share: the body read as a JSON object,
// the routes every sandbox has (payments, requests, faults, reset), and every answer as JSON,
// a refused one as {detail} with 400 (a bad body), 404 (unknown) or 409 (a state that does not
// allow it).

import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJson, readBody, sendJson } from "./http.js";

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const detail = (message: string) => ({ detail: message });
export const OK = detail("OK");

/** What every sandbox offers its control API. */
interface ControlledSandbox {
  payments(): unknown;
  calls: { requests: unknown };
  faults: { clear(): void };
  reset(): void;
}

type ErrorClass = abstract new (...args: never[]) => Error;

export interface ControlRoutes {
  /** The sandbox's own errors: an unknown payment (404), a state that refuses a change (409). */
  unknown: ErrorClass;
  conflict: ErrorClass;
  /** Sets the fault the body names (a RangeError for a bad one). */
  setFault(body: JsonObject): void;
  /** The sandbox's own routes: their answer, or undefined when `route` is none of them. */
  own(route: { method: string; target: string; body: JsonObject; url: URL }): unknown;
}

export async function handleControl(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  prefix: string,
  sandbox: ControlledSandbox,
  routes: ControlRoutes,
): Promise<void> {
  const parsed = parseJson(await readBody(request));
  const body: JsonObject = parsed.valid && isJsonObject(parsed.value) ? parsed.value : {};
  const method = request.method ?? "GET";
  const target = url.pathname.slice(prefix.length).replace(/\/$/, "");
  try {
    const answer =
      routes.own({ method, target, body, url }) ?? common(method, target, body, sandbox, routes);
    if (answer === undefined) {
      return sendJson(response, 404, detail(`No control route ${method} ${target}`));
    }
    return sendJson(response, 200, answer);
  } catch (error) {
    if (error instanceof routes.unknown) return sendJson(response, 404, detail(error.message));
    if (error instanceof routes.conflict) return sendJson(response, 409, detail(error.message));
    if (error instanceof RangeError) return sendJson(response, 400, detail(error.message));
    throw error;
  }
}

function common(
  method: string,
  target: string,
  body: JsonObject,
  sandbox: ControlledSandbox,
  routes: ControlRoutes,
): unknown {
  switch (`${method} ${target}`) {
    case "GET payments":
      return sandbox.payments();
    case "GET requests":
      return sandbox.calls.requests;
    case "POST faults":
      routes.setFault(body);
      return OK;
    case "DELETE faults":
      sandbox.faults.clear();
      return OK;
    case "POST reset":
      sandbox.reset();
      return OK;
    default:
      return undefined;
  }
}
