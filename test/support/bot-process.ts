import { type ChildProcess, spawn } from "node:child_process";
import type { Sandbox } from "../../src/sandbox/server.js";
import type { TelegramEmulator } from "../../src/telegram-emulator/index.js";
import { TEST_REDIS_URL } from "./redis.js";
import { BOT_TOKEN, PROVIDER_TOKEN } from "./stack.js";

/** The bot as its own process (`src/main.ts`), wired to an emulator, a sandbox and Redis. */
export function spawnBot(
  emulator: TelegramEmulator,
  sandbox: Sandbox,
  keyPrefix: string,
  env: Record<string, string>,
): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: {
      PATH: process.env.PATH,
      BOT_TOKEN,
      TELEGRAM_API_ROOT: emulator.apiRoot,
      PROVIDER_BASE_URL: sandbox.baseUrl(),
      PROVIDER_TOKEN,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: keyPrefix,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: "ignore",
  });
}
