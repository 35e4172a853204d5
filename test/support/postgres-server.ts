// A PostgreSQL server of the test's own, on a free port in a fresh data directory: the shared
// one on 5432 is never touched. Started from Debian's binaries (as the postgres user when the
// tests run as root: PostgreSQL refuses root), stopped, killed or paused by its PID.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { freePort } from "./ports.js";

export interface OwnPostgres {
  /** postgres://… of the server's `postgres` database. */
  readonly url: string;
  readonly port: number;
  /** The URL of another database on the same server. */
  urlOf(database: string): string;
  /** SIGKILL: gone at once, like a crash. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing answers. */
  pause(): void;
  resume(): void;
  /** Starts the server again on the same port and data (after kill()). */
  start(): Promise<void>;
  /** Stops it (fast shutdown) and removes its data. */
  stop(): Promise<void>;
}

function binary(name: string): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort().reverse() : [];
  for (const version of versions) {
    const path = join(root, version, "bin", name);
    if (existsSync(path)) return path;
  }
  return name;
}

const asRoot = process.getuid?.() === 0;
/** The command, as the postgres user when we are root. */
const asPostgres = (command: string, args: string[]): [string, string[]] =>
  asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "topup-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const user = asRoot ? "postgres" : (process.env.USER ?? "postgres");
  const urlOf = (database: string) => `postgres://${user}@127.0.0.1:${port}/${database}`;
  const url = urlOf("postgres");
  execFileSync(
    ...asPostgres(binary("initdb"), [
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      user,
      "--no-sync",
      "-E",
      "UTF8",
    ]),
    { stdio: "ignore" },
  );
  let child: ChildProcess | undefined;

  const start = async () => {
    const [command, args] = asPostgres(binary("postgres"), [
      "-D",
      data,
      "-p",
      String(port),
      "-h",
      "127.0.0.1",
      "-k",
      dir,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
    ]);
    // A process group of its own: the postmaster and its backends are signalled together.
    child = spawn(command, args, { stdio: "ignore", detached: true });
    for (let i = 0; i < 200; i++) {
      if (await answers(url)) return;
      await sleep(50);
    }
    throw new Error(`postgres on port ${port} did not start`);
  };
  const signalAll = (signal: NodeJS.Signals) => {
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Gone already.
    }
  };
  const waitExit = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise((resolve) => running.once("exit", resolve));
  };
  const kill = async () => {
    signalAll("SIGCONT");
    signalAll("SIGKILL");
    await waitExit();
    rmSync(join(data, "postmaster.pid"), { force: true });
  };

  await start();
  return {
    url,
    port,
    urlOf,
    kill,
    pause: () => signalAll("SIGSTOP"),
    resume: () => signalAll("SIGCONT"),
    start,
    async stop() {
      signalAll("SIGCONT");
      // SIGINT: PostgreSQL's fast shutdown.
      signalAll("SIGINT");
      await Promise.race([waitExit(), sleep(5_000)]);
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
