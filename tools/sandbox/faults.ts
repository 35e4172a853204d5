// Injected misbehaviour: the table of active faults per operation and how each fault kind
// shapes the answer to one request.

import type { ServerResponse } from "node:http";
import { SUCCESS_CODES } from "./codes.js";
import type { Delays } from "./delays.js";
import { sendText } from "./http.js";
import type { OperationResult } from "./operations.js";
import { htmlPage, rejection, type WireAnswer } from "./profiles.js";
import {
  SANDBOX_OPERATIONS,
  type SandboxFault,
  type SandboxOperation,
  type SandboxProfile,
} from "./types.js";
import { isJsonObject, RequestError } from "./validate.js";
import { type ProviderResponse, unauthorized } from "./wire.js";

const MAX_DELAY_MS = 2 ** 31 - 1;

interface ActiveFault {
  fault: SandboxFault;
  /** undefined = until cleared. */
  remaining: number | undefined;
}

export class FaultTable {
  private readonly active = new Map<SandboxOperation, ActiveFault>();

  set(operation: SandboxOperation, fault: SandboxFault): void {
    if (fault.times !== undefined && !(Number.isInteger(fault.times) && fault.times > 0)) {
      throw new RangeError(`Fault times must be a positive integer, got ${fault.times}`);
    }
    // setTimeout silently turns longer delays into 1 ms.
    if ("ms" in fault && !(fault.ms >= 0 && fault.ms <= MAX_DELAY_MS)) {
      throw new RangeError(`Fault ms must be between 0 and ${MAX_DELAY_MS}, got ${fault.ms}`);
    }
    this.active.set(operation, { fault, remaining: fault.times });
  }

  clear(): void {
    this.active.clear();
  }

  /** The fault for this request, if any, counted against its `times`. */
  take(operation: SandboxOperation): SandboxFault | undefined {
    const entry = this.active.get(operation);
    if (!entry) return undefined;
    if (entry.remaining !== undefined) {
      entry.remaining -= 1;
      if (entry.remaining === 0) this.active.delete(operation);
    }
    return entry.fault;
  }
}

export interface Exchange {
  operation: SandboxOperation;
  response: ServerResponse;
  /** Runs the operation against the state (the effect) and returns its answer. */
  perform: () => OperationResult;
  /** Destroys the connection without an answer. */
  destroyConnection: () => void;
  delays: Delays;
  profile: SandboxProfile;
  /** An operation's result as the profile says it. */
  speak: (result: OperationResult) => WireAnswer;
}

function send(response: ServerResponse, answer: WireAnswer): void {
  sendText(response, answer.status, answer.contentType, answer.text);
}

export async function respond(fault: SandboxFault | undefined, exchange: Exchange): Promise<void> {
  const { operation, response, perform, delays, speak, profile } = exchange;
  switch (fault?.kind) {
    case undefined:
      return send(response, speak(perform()));
    case "latency":
      if (await delays.wait(fault.ms)) send(response, speak(perform()));
      return;
    case "hang-then-succeed": {
      const result = perform();
      if (await delays.wait(fault.ms)) send(response, speak(result));
      return;
    }
    case "http-500":
    case "http-502": {
      if (fault.afterEffect) perform();
      return send(response, htmlPage(fault.kind === "http-500" ? 500 : 502));
    }
    case "malformed-json": {
      // Without the effect, truncate what a success would have looked like.
      const whole = JSON.stringify(
        fault.afterEffect
          ? perform().response
          : { success: true, code: SUCCESS_CODES[operation], message: "OK", body: {} },
      );
      return sendText(response, 200, "application/json", whole.slice(0, whole.length >> 1));
    }
    case "connection-reset":
      if (fault.afterEffect) perform();
      return exchange.destroyConnection();
    case "http-401":
      return send(response, speak({ status: 401, response: unauthorized() }));
    case "reject":
      return send(response, rejection(profile, fault));
    case "transform": {
      const result = perform();
      const changed = fault.transform(result.response);
      // An envelope is spoken like any answer; anything else goes out as it is (undefined, as
      // an empty body).
      if (isJsonObject(changed) && typeof changed.success === "boolean") {
        return send(response, speak({ ...result, response: changed as ProviderResponse }));
      }
      const text = JSON.stringify(changed) ?? "";
      return sendText(response, result.status, "application/json", text);
    }
  }
}

const KINDS_OVER_HTTP = [
  "latency",
  "hang-then-succeed",
  "http-500",
  "http-502",
  "malformed-json",
  "connection-reset",
  "http-401",
  "reject",
] as const;

function invalid(message: string): RequestError {
  return new RequestError("SBX_INVALID_FIELD", message);
}

function optionalTimes(value: unknown): number | undefined {
  if (value === undefined || typeof value === "number") return value;
  throw invalid(`"fault.times" must be a number`);
}

function optionalFlag(value: unknown, name: string): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  throw invalid(`"fault.${name}" must be a boolean`);
}

/**
 * Reads `{operation, fault}` from the control API; every kind except `transform`. Checks the
 * shape only; FaultTable.set() checks the ranges.
 */
export function parseFaultRequest(body: unknown): {
  operation: SandboxOperation;
  fault: SandboxFault;
} {
  if (!isJsonObject(body)) throw new RequestError("SBX_INVALID_JSON", "Expected a JSON object");
  const operation = SANDBOX_OPERATIONS.find((name) => name === body.operation);
  if (!operation) throw invalid(`"operation" must be one of ${SANDBOX_OPERATIONS.join(", ")}`);
  const raw = body.fault;
  if (!isJsonObject(raw)) throw invalid(`"fault" must be an object`);
  const kind = KINDS_OVER_HTTP.find((name) => name === raw.kind);
  if (!kind) throw invalid(`"fault.kind" must be one of ${KINDS_OVER_HTTP.join(", ")}`);
  const times = optionalTimes(raw.times);
  switch (kind) {
    case "latency":
    case "hang-then-succeed": {
      if (typeof raw.ms !== "number") throw invalid(`"fault.ms" must be a number`);
      return { operation, fault: { kind, ms: raw.ms, times } };
    }
    case "http-500":
    case "http-502":
    case "malformed-json":
    case "connection-reset":
      return {
        operation,
        fault: { kind, times, afterEffect: optionalFlag(raw.afterEffect, "afterEffect") },
      };
    case "http-401":
      return { operation, fault: { kind, times } };
    case "reject": {
      if (typeof raw.code !== "string") throw invalid(`"fault.code" must be a string`);
      if (raw.message !== undefined && typeof raw.message !== "string") {
        throw invalid(`"fault.message" must be a string`);
      }
      const status = raw.status;
      if (status !== undefined && !(Number.isInteger(status) && Number(status) >= 200)) {
        throw invalid(`"fault.status" must be an HTTP status`);
      }
      const html = optionalFlag(raw.html, "html");
      return {
        operation,
        fault: {
          kind,
          code: raw.code,
          message: raw.message,
          status: status as number | undefined,
          html,
          times,
        },
      };
    }
  }
}
