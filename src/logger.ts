import { GrammyError } from "grammy";
import { pino } from "pino";

export type Logger = pino.Logger;

/**
 * The process logger. Secrets are redacted by key as a second line of defence; the first is
 * that no code logs tokens, message texts, phone numbers or customer names at all.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ["token", "*.token", "botToken", "*.botToken", "authorization", "*.authorization"],
        censor: "[redacted]",
      },
    },
    destination,
  );
}

/**
 * Log fields for an error. A Telegram error carries the request it failed on (message texts,
 * names), so only its outline is logged; other errors are logged whole.
 */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof GrammyError) {
    return { method: error.method, errorCode: error.error_code, description: error.description };
  }
  return { err: error };
}
