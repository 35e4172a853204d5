import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/adapters/logger.js";
import { secretsOf } from "../../src/config.js";
import { logRecorder } from "./log-record.js";

/**
 * A real pino logger whose output lines are kept for assertions (and recorded for the run's
 * log scan). `env`: the bot's settings, whose secrets the logger scrubs as in production.
 */
export function captureLogs(
  level = "debug",
  env: Record<string, string | undefined> = {},
): { logger: Logger; lines: () => string[] } {
  const chunks: string[] = [];
  const record = logRecorder("in-process", env);
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      record(String(chunk));
      done();
    },
  });
  const logger = createLogger(level, {
    secrets: Object.values(secretsOf(env)),
    destination: stream,
  });
  return { logger, lines: () => chunks.join("").split("\n").filter(Boolean) };
}
