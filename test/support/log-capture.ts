import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/adapters/logger.js";

/** A real pino logger whose output lines are kept for assertions. */
export function captureLogs(level = "debug"): { logger: Logger; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger(level, stream);
  return { logger, lines: () => chunks.join("").split("\n").filter(Boolean) };
}
