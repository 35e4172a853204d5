// The Bot API's failure answer. Handlers throw it; the server turns it into
// `{ ok: false, error_code, description, parameters? }` with the same HTTP status.

import type { ResponseParameters } from "grammy/types";

export class ApiError extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly parameters?: ResponseParameters,
  ) {
    super(description);
    this.name = "ApiError";
  }
}

export function badRequest(reason: string): ApiError {
  return new ApiError(400, `Bad Request: ${reason}`);
}

export function forbidden(reason: string): ApiError {
  return new ApiError(403, `Forbidden: ${reason}`);
}

export function cantParseEntities(reason: string): ApiError {
  return badRequest(`can't parse entities: ${reason}`);
}
