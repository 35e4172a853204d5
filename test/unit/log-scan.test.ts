// The scan at the end of a test run: what it finds, and that its report never repeats it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeFindings, SECRETS_FILE, scanLogs } from "../support/log-scan.js";

const dirs: string[] = [];
function runFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "log-scan-test-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the log scan", () => {
  it("names the kind and file:line of every secret, phone number, name and personal field", () => {
    const dir = runFolder({
      [SECRETS_FILE]: `${JSON.stringify({ BOT_TOKEN: "9:tok-en", WEBHOOK_SECRET: "hook_s" })}\n{}\n`,
      "a.test.ts.1.1.process.log": [
        '{"msg":"clean","userId":5}',
        '{"url":"http://x/bot9:tok-en/sendMessage"}',
        '{"update":{"from":{"id":5,"first_name":"Po"}}}',
        '{"reason":"Failing row contains (9841000001)"}',
        '{"query":"mobile=9800000001&pidx=x"}',
      ].join("\n"),
      "b.test.ts.2.1.in-process.log": '{"who":"Seán O\'Brien <Ltd> & Sons","s":"hook_s"}\n',
      "ignored.txt": "9841000001",
    });
    const findings = scanLogs(dir);
    expect(findings).toEqual(
      expect.arrayContaining([
        { kind: "BOT_TOKEN", file: "a.test.ts.1.1.process.log", line: 2 },
        { kind: 'a "first_name" field', file: "a.test.ts.1.1.process.log", line: 3 },
        { kind: "customer 1000001's phone number", file: "a.test.ts.1.1.process.log", line: 4 },
        { kind: "a payer's mobile number", file: "a.test.ts.1.1.process.log", line: 5 },
        { kind: "customer 1000008's first name", file: "b.test.ts.2.1.in-process.log", line: 1 },
        { kind: "customer 1000008's last name", file: "b.test.ts.2.1.in-process.log", line: 1 },
        { kind: "WEBHOOK_SECRET", file: "b.test.ts.2.1.in-process.log", line: 1 },
      ]),
    );
    expect(findings).toHaveLength(7);
    const report = describeFindings(dir, findings);
    expect(report).toContain(`BOT_TOKEN in ${join(dir, "a.test.ts.1.1.process.log")}:2`);
    for (const value of ["9:tok-en", "hook_s", "9841000001", "9800000001", "Seán", "O'Brien"]) {
      expect(report).not.toContain(value);
    }
  });

  it("finds a connection URL's password as written and percent-decoded", () => {
    const secrets = { "REDIS_URL password": "pa%2F55", "REDIS_URL user and password": "u:pa%2F55" };
    const dir = runFolder({
      [SECRETS_FILE]: `${JSON.stringify(secrets)}\n`,
      "d.log": ['{"reason":"AUTH pa/55 refused"}', '{"url":"redis://u:pa%2F55@h"}'].join("\n"),
    });
    expect(scanLogs(dir)).toEqual([
      { kind: "REDIS_URL password", file: "d.log", line: 1 },
      { kind: "REDIS_URL password", file: "d.log", line: 2 },
      { kind: "REDIS_URL user and password", file: "d.log", line: 2 },
    ]);
  });

  it("finds names as whole words only, and nothing in clean lines", () => {
    const dir = runFolder({
      "c.log": '{"msg":"Ramesh and Sitara; hari.gurung","service":"tv"}\n',
    });
    expect(scanLogs(dir)).toEqual([]);
  });
});
