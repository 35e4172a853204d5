// The playground's log, for a person at a terminal: one line in words per entry ("WARN: what
// happened (field: value; …)"), not the bot's JSON lines, which are for log collectors.
import pretty from "pino-pretty";
import { createLogger, type Logger } from "../../src/adapters/logger.js";

/** `destination`: stdout (1) unless a test reads the lines. */
export function playgroundLogger(
  level: string,
  destination: number | NodeJS.WritableStream = 1,
): Logger {
  return createLogger(level, {
    destination: pretty({
      destination,
      ignore: "time",
      hideObject: true,
      // In order with the banner, which is written straight to stdout.
      sync: true,
      messageFormat: (entry, messageKey) => inWords(entry, messageKey),
    }),
  });
}

/** The message, then each field as "name: value"; an error by its type and message. */
function inWords(entry: Record<string, unknown>, messageKey: string): string {
  const { [messageKey]: message, level: _level, time: _time, ...fields } = entry;
  const said = Object.entries(fields).map(([name, value]) => `${name}: ${valueInWords(value)}`);
  return said.length > 0 ? `${String(message)} (${said.join("; ")})` : String(message);
}

function valueInWords(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && "message" in value) {
    const { type, message } = value as { type?: unknown; message?: unknown };
    return type ? `${String(type)}: ${String(message)}` : String(message);
  }
  if (Array.isArray(value)) return value.map(valueInWords).join(", ");
  return JSON.stringify(value);
}
