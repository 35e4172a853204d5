// vitest's global setup: a folder for every log line of the run (TEST_LOG_DIR), scanned when
// the run ends; a finding fails the run. The folder stays for reading when it does.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeFindings, LOG_DIR_VARIABLE, scanLogs } from "./log-scan.js";

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), "topup-test-logs-"));
  process.env[LOG_DIR_VARIABLE] = dir;
  return () => {
    const findings = scanLogs(dir);
    if (findings.length === 0) {
      rmSync(dir, { recursive: true, force: true });
      return;
    }
    // Not thrown: vitest only prints a teardown's error, and skips the teardowns after it.
    process.stderr.write(`\n${describeFindings(dir, findings)}\n\n`);
    process.exitCode = 1;
  };
}
