// `npm run demo` as a newcomer starts it: a banner in words (no raw JSON log line, nothing on
// stderr), the page up, and Ctrl-C (SIGINT to the process group, as a terminal sends it)
// stopping it cleanly with nothing more said.
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { until } from "../support/wait.js";

/** Only what a newcomer's shell would have: no REDIS_URL, LOG_LEVEL or payment settings. */
const env = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  DEMO_PORT: "0",
};

describe("npm run demo", () => {
  const child = spawn("npm", ["run", "demo"], { env, detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? String(code))),
  );
  /** Whether any process of the group (npm, tsx, the playground) is left. */
  const groupAlive = () => {
    try {
      process.kill(-(child.pid ?? 0), 0);
      return true;
    } catch {
      return false;
    }
  };
  afterAll(() => {
    if (groupAlive()) process.kill(-(child.pid ?? 0), "SIGKILL");
  });

  it("prints its banner in words, serves the page and stops on Ctrl-C", async () => {
    await until(() => stdout.includes("Press Ctrl+C to stop."), 15_000);
    const lines = stdout.split("\n").filter((line) => line.trim() !== "");
    const json = lines.filter((line) => /^\s*[[{]/.test(line));
    expect(json, stdout).toEqual([]);
    expect(stderr).toBe("");
    const url = /^Playground: (http:\/\/\S+)$/m.exec(stdout)?.[1];
    expect(url, stdout).toBeDefined();
    expect(stdout).toMatch(/^Redis: /m);
    expect((await fetch(`${url}/api/bootstrap`)).status).toBe(200);

    const banner = stdout;
    process.kill(-(child.pid ?? 0), "SIGINT");
    // npm itself ends by the signal, as in a terminal; the playground exits 0 within it.
    expect(["0", "SIGINT"]).toContain(await exited);
    await until(() => !groupAlive(), 10_000);
    expect(stdout).toBe(banner);
    expect(stderr).toBe("");
  }, 30_000);
});
