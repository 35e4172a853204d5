import { pino } from "pino";
import { outlineError, outlineErrorFields } from "./logging/errors.js";
import { secretScrubber } from "./logging/secrets.js";

export type Logger = pino.Logger;

export interface LoggerOptions {
  /** Values never written (config.ts's secretsOf): tokens, keys, the stores' passwords. */
  secrets?: readonly string[];
  destination?: pino.DestinationStream;
}

/**
 * The process logger. Errors are outlined by an allow-list (logging/errors.ts) and every line
 * is scrubbed of the secrets as it is written; keys named like secrets are redacted too. The
 * first line of defence stays that no code logs tokens, message texts, phone numbers or
 * names at all. Errors go under `err`.
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  return pino(
    {
      level,
      base: undefined,
      serializers: { err: (error: unknown) => outlineError(error) },
      formatters: { log: outlineErrorFields },
      hooks: { streamWrite: secretScrubber(options.secrets ?? []) },
      redact: {
        paths: ["token", "*.token", "botToken", "*.botToken", "authorization", "*.authorization"],
        censor: "[redacted]",
      },
    },
    options.destination,
  );
}
