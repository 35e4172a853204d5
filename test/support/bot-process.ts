import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../tools/sandbox/server.js";
import {
  createTelegramEmulator,
  type TelegramEmulator,
  type TelegramEmulatorOptions,
} from "../../tools/telegram-emulator/index.js";
import { logRecorder } from "./log-record.js";
import { createDatabase, testDatabase } from "./postgres.js";
import { TEST_REDIS_URL, testRedis } from "./redis.js";
import { BOT_TOKEN, PROVIDER_TOKEN } from "./stack.js";

/** One bot process and what it logged (JSON lines, parsed). */
export interface BotProcess {
  child: ChildProcess;
  logs(): Record<string, unknown>[];
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** The sandbox and the emulator in this process; the bot as processes of its own (`src/main.ts`). */
export interface ProcessStack {
  sandbox: Sandbox;
  emulator: TelegramEmulator;
  /** REDIS_KEY_PREFIX of the bots. */
  prefix: string;
  /** DATABASE_URL of the bots: a database of the stack's own. */
  databaseUrl: string;
  /**
   * DATA_DIR of the bots (the payment journal): a temporary folder of the stack's own, one
   * process's at a time (its lock): a bot started while another of the stack still runs (a
   * replica) gets a folder of its own, as every instance must; one started after (a restart)
   * takes this one over.
   */
  dataDir: string;
  /**
   * Starts one bot process with these variables on top of the stack's own: `node` on
   * src/main.ts, or an npm script (`npm start`, `npm run dev`) in a process group of its own,
   * so that a test can signal npm alone or the whole group, as a terminal's Ctrl-C does.
   */
  startBot(env?: Record<string, string>, how?: { npm?: "start" | "dev" }): BotProcess;
  /** Kills every bot process still running, then closes the rest. */
  stop(): Promise<void>;
}

export interface ProcessStackOptions {
  /** A Redis of the test's own (see redis-server.ts); the shared one otherwise. */
  redisUrl?: string;
  /** A PostgreSQL server of the test's own (see postgres-server.ts); the run's otherwise. */
  postgresUrl?: string;
  sandbox?: SandboxOptions;
  emulator?: Omit<TelegramEmulatorOptions, "bots">;
}

/** The environment a bot process needs to talk to this emulator, sandbox, Redis prefix and ledger. */
export function botEnvironment(
  emulator: TelegramEmulator,
  sandbox: Sandbox,
  stores: { redisPrefix: string; databaseUrl: string; redisUrl?: string },
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.apiRoot,
    PROVIDER_BASE_URL: sandbox.baseUrl(),
    PROVIDER_TOKEN,
    REDIS_URL: stores.redisUrl ?? TEST_REDIS_URL,
    REDIS_KEY_PREFIX: stores.redisPrefix,
    DATABASE_URL: stores.databaseUrl,
    PAYMENT_MODE: "none",
    TOPUP_USER_IDS: "*",
    TELEGRAM_POLL_TIMEOUT_SECONDS: "1",
  };
}

export async function startProcessStack(
  name: string,
  options: ProcessStackOptions = {},
): Promise<ProcessStack> {
  const sandbox = await createSandbox({ token: PROVIDER_TOKEN, ...options.sandbox });
  const emulator = await createTelegramEmulator({
    ...options.emulator,
    bots: [{ token: BOT_TOKEN }],
  });
  const store = testRedis(name);
  const databaseUrl = options.postgresUrl
    ? await createDatabase(options.postgresUrl, name)
    : await testDatabase(name);
  const dataDir = mkdtempSync(join(tmpdir(), "topup-data-"));
  const processes: ChildProcess[] = [];
  const replicaDirs: string[] = [];
  const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
  const replicaDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "topup-data-"));
    replicaDirs.push(dir);
    return dir;
  };
  return {
    sandbox,
    emulator,
    prefix: store.prefix,
    databaseUrl,
    dataDir,
    startBot(env = {}, how = {}) {
      // TEST_BOT_BUNDLE=1: the process tests run what ships, dist/main.js (`npm run build` first).
      const [command, args] = how.npm
        ? ["npm", ["run", how.npm, "--silent"]]
        : process.env.TEST_BOT_BUNDLE
          ? [process.execPath, ["dist/main.js"]]
          : [process.execPath, ["--import", "tsx", "src/main.ts"]];
      const botEnv = {
        ...botEnvironment(emulator, sandbox, {
          redisPrefix: store.prefix,
          redisUrl: options.redisUrl,
          databaseUrl,
        }),
        DATA_DIR: processes.some(running) ? replicaDir() : dataDir,
        LOG_LEVEL: "warn",
        ...env,
      };
      const child = spawn(command, args, {
        env: botEnv,
        stdio: ["ignore", "pipe", "pipe"],
        detached: how.npm !== undefined,
      });
      processes.push(child);
      const record = logRecorder("process", botEnv);
      let output = "";
      const collect = (chunk: unknown) => {
        output += String(chunk);
        record(String(chunk));
      };
      child.stdout?.on("data", collect);
      child.stderr?.on("data", collect);
      return {
        child,
        logs: () =>
          output
            .split("\n")
            .filter((line) => line.startsWith("{"))
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
      };
    },
    async stop() {
      await Promise.all(
        processes
          .filter((child) => child.exitCode === null && child.signalCode === null)
          .map((child) => {
            const exited = new Promise((resolve) => child.once("exit", resolve));
            // A process group of its own (npm start) is stopped as a whole.
            if (child.spawnargs[0] === "npm" && child.pid) process.kill(-child.pid, "SIGTERM");
            else child.kill("SIGTERM");
            return exited;
          }),
      );
      await emulator.close();
      await sandbox.close();
      await store.cleanup();
      for (const dir of [dataDir, ...replicaDirs]) rmSync(dir, { recursive: true, force: true });
    },
  };
}
