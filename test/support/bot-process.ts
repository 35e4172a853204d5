import { type ChildProcess, spawn } from "node:child_process";
import { createSandbox, type Sandbox } from "../../tools/sandbox/server.js";
import {
  createTelegramEmulator,
  type TelegramEmulator,
} from "../../tools/telegram-emulator/index.js";
import { TEST_REDIS_URL, testRedis } from "./redis.js";
import { BOT_TOKEN, PROVIDER_TOKEN } from "./stack.js";

/** The sandbox and the emulator in this process; the bot as processes of its own (`src/main.ts`). */
export interface ProcessStack {
  sandbox: Sandbox;
  emulator: TelegramEmulator;
  /** Starts one bot process with these variables on top of the stack's own. */
  startBot(env?: Record<string, string>): ChildProcess;
  /** Kills every bot process still running, then closes the rest. */
  stop(): Promise<void>;
}

/** The environment a bot process needs to talk to this emulator, sandbox and Redis prefix. */
export function botEnvironment(
  emulator: TelegramEmulator,
  sandbox: Sandbox,
  redisPrefix: string,
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.apiRoot,
    PROVIDER_BASE_URL: sandbox.baseUrl(),
    PROVIDER_TOKEN,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redisPrefix,
    TELEGRAM_POLL_TIMEOUT_SECONDS: "1",
  };
}

export async function startProcessStack(name: string): Promise<ProcessStack> {
  const sandbox = await createSandbox({ token: PROVIDER_TOKEN });
  const emulator = await createTelegramEmulator({ bots: [{ token: BOT_TOKEN }] });
  const store = testRedis(name);
  const processes: ChildProcess[] = [];
  return {
    sandbox,
    emulator,
    startBot(env = {}) {
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        env: { ...botEnvironment(emulator, sandbox, store.prefix), LOG_LEVEL: "warn", ...env },
        stdio: "ignore",
      });
      processes.push(child);
      return child;
    },
    async stop() {
      await Promise.all(
        processes
          .filter((child) => child.exitCode === null && child.signalCode === null)
          .map((child) => {
            const exited = new Promise((resolve) => child.once("exit", resolve));
            child.kill("SIGTERM");
            return exited;
          }),
      );
      await emulator.close();
      await sandbox.close();
      await store.cleanup();
    },
  };
}
