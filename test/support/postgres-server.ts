// A PostgreSQL server of the test's own, on a free port in a fresh data directory: the shared
// one on 5432 is never touched. Started from Debian's binaries (as the postgres user when the
// tests run as root: PostgreSQL refuses root), stopped, killed or paused by its PID.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { freePort } from "./ports.js";
import { alive } from "./wait.js";

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

function readFirstLine(path: string): string {
  try {
    return readFileSync(path, "utf8").split("\n")[0] ?? "";
  } catch {
    return "";
  }
}

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

/** `settings`: more `name=value` server settings (a benchmark loads pg_stat_statements). */
export async function startOwnPostgres(settings: string[] = []): Promise<OwnPostgres> {
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
      // Only a crash of the machine would lose data: a killed server keeps every commit.
      "-c",
      "fsync=off",
      "-c",
      "max_connections=300",
      ...settings.flatMap((setting) => ["-c", setting]),
    ]);
    // Its log beside the data, for a failing test's reader.
    const log = openSync(join(dir, "postgres.log"), "a");
    child = spawn(command, args, { stdio: ["ignore", log, log] });
    closeSync(log);
    for (let i = 0; i < 200; i++) {
      if (await answers(url)) return;
      await sleep(50);
    }
    throw new Error(`postgres on port ${port} did not start`);
  };
  /** The postmaster and its backends (each of which is a session of its own). */
  const serverPids = (): number[] => {
    const postmaster = Number(readFirstLine(join(data, "postmaster.pid")));
    if (!postmaster) return [];
    const children = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        const stat = readFirstLine(`/proc/${pid}/stat`);
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing bracket.
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      })
      .map(Number);
    return [postmaster, ...children];
  };
  const signalAll = (signal: NodeJS.Signals) => {
    // runuser stops itself when its child is stopped (job control): it is woken with it.
    const wrapper = signal === "SIGCONT" && asRoot && child?.pid ? [child.pid] : [];
    for (const pid of [...serverPids(), ...wrapper]) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone already.
      }
    }
  };
  const waitExit = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise((resolve) => running.once("exit", resolve));
  };
  const kill = async () => {
    const pids = serverPids();
    signalAll("SIGCONT");
    signalAll("SIGKILL");
    await waitExit();
    // Every process of the old server gone before a new one may start on the same data.
    for (let i = 0; i < 100 && pids.some(alive); i++) await sleep(20);
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
      // SIGINT to the postmaster: PostgreSQL's fast shutdown.
      const [postmaster] = serverPids();
      if (postmaster !== undefined && alive(postmaster)) process.kill(postmaster, "SIGINT");
      await Promise.race([waitExit(), sleep(5_000)]);
      await kill();
      // KEEP_PG=1 keeps the data folder and its postgres.log, for reading after a failed run.
      if (!process.env.KEEP_PG) rmSync(dir, { recursive: true, force: true });
    },
  };
}
