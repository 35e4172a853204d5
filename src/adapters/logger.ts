import { GrammyError } from "grammy";
import { pino } from "pino";

export type Logger = pino.Logger;

/**
 * A Telegram error carries the request it failed on (message texts, names): only its outline
 * is logged. Every other error is logged whole.
 */
function errorSerializer(error: unknown): unknown {
  if (error instanceof GrammyError) {
    return {
      type: "GrammyError",
      method: error.method,
      errorCode: error.error_code,
      description: error.description,
    };
  }
  return error instanceof Error ? pino.stdSerializers.err(error) : error;
}

/**
 * The process logger. Secrets are redacted by key as a second line of defence; the first is
 * that no code logs tokens, message texts, phone numbers or customer names at all. Errors go
 * under `err`.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      serializers: { err: errorSerializer },
      redact: {
        paths: ["token", "*.token", "botToken", "*.botToken", "authorization", "*.authorization"],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
