// Every log line the bot writes in a test run is also appended to the run's folder
// (TEST_LOG_DIR, made by log-scan-setup.ts), with the secrets it was given, for the scan
// at the end of the run (log-scan.ts).
import { appendFileSync } from "node:fs";
import { basename, join } from "node:path";
import { expect } from "vitest";
import { secretsOf } from "../../src/config.js";
import { LOG_DIR_VARIABLE, SECRETS_FILE } from "./log-scan.js";

let recorders = 0;

/**
 * A sink for one bot's raw log output, named after the test file; `env` holds the bot's
 * settings (their secrets are what the scan looks for). A no-op outside a vitest run.
 */
export function logRecorder(
  origin: string,
  env: Record<string, string | undefined> = {},
): (chunk: string) => void {
  const dir = process.env[LOG_DIR_VARIABLE];
  if (!dir) return (_chunk: string) => undefined;
  appendFileSync(join(dir, SECRETS_FILE), `${JSON.stringify(secretsOf(env))}\n`);
  const test = basename(expect.getState().testPath ?? "unknown");
  const file = join(dir, `${test}.${process.pid}.${++recorders}.${origin}.log`);
  return (chunk: string) => appendFileSync(file, chunk);
}
