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
