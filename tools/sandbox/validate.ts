// Request-shape checks. A malformed request is the caller's bug, not a business outcome,
// so these throw RequestError, which the server answers with HTTP 400 naming the field.

import type { FailureCode } from "./codes.js";
import { SERVICE_KINDS, type ServiceKind } from "./types.js";

export type JsonObject = Record<string, unknown>;

export class RequestError extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
  }
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown): JsonObject {
  if (!isJsonObject(value)) {
    throw new RequestError("SBX_INVALID_JSON", "The request body must be a JSON object");
  }
  return value;
}

/** A required, non-blank string field. */
export function requireString(body: JsonObject, field: string): string {
  const value = body[field];
  if (typeof value !== "string" || value.trim() === "") {
    throw new RequestError("SBX_INVALID_FIELD", `Field "${field}" must be a non-empty string`);
  }
  return value;
}

/** An optional string field; null counts as absent. */
export function optionalString(body: JsonObject, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new RequestError("SBX_INVALID_FIELD", `Field "${field}" must be a string when present`);
  }
  return value;
}

export function requireService(body: JsonObject): ServiceKind {
  const value = body.service;
  const kind = SERVICE_KINDS.find((service) => service === value);
  if (!kind) {
    throw new RequestError(
      "SBX_INVALID_FIELD",
      `Field "service" must be one of ${SERVICE_KINDS.join(", ")}`,
    );
  }
  return kind;
}

/** The spec allows `amt` as a number or a string; whether it is numeric is a business check. */
export function requireAmount(body: JsonObject): number | string {
  const value = body.amt;
  if (typeof value !== "number" && typeof value !== "string") {
    throw new RequestError("SBX_INVALID_FIELD", `Field "amt" must be a number or a string`);
  }
  return value;
}

/** The numeric value of an `amt`, or null for a non-numeric string. */
export function numericAmount(amt: number | string): number | null {
  if (typeof amt === "number") return amt;
  return /^\s*\d+(\.\d+)?\s*$/.test(amt) ? Number(amt) : null;
}
