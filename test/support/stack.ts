// The whole product for end-to-end tests: the provider sandbox, the Telegram emulator, real
// Redis under a key prefix of the test's own, a PostgreSQL database of its own, and the real
// bot application.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../tools/sandbox/server.js";
import {
  createTelegramEmulator,
  type TelegramEmulator,
} from "../../tools/telegram-emulator/index.js";

type EmulatorOptions = NonNullable<Parameters<typeof createTelegramEmulator>[0]>;

import { captureLogs } from "./log-capture.js";
import { freePort } from "./ports.js";
import { testDatabase } from "./postgres.js";
import { TEST_REDIS_URL, testRedis } from "./redis.js";

export const BOT_TOKEN = "424242:e2e-bot-token";
export const PROVIDER_TOKEN = "e2e-provider-token";

export interface Stack {
  sandbox: Sandbox;
  emulator: TelegramEmulator;
  /** The environment the bot was configured with (for starting it as a process too). */
  env: Record<string, string>;
  logs: () => string[];
  app: App;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The stack with its shop: the Mini App's page built (without it the bot offers no shop) and the
 * bot's HTTP server on a free loopback port, `base`, which is its PUBLIC_URL.
 */
export async function startShopStack(
  name: string,
  env: Record<string, string> = {},
  sandboxOptions: SandboxOptions = {},
  emulatorOptions: EmulatorOptions = {},
): Promise<{ stack: Stack; base: string }> {
  execFileSync(process.execPath, ["tools/build-webapp.mjs"]);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const stack = await startStack(
    name,
    { PUBLIC_URL: base, HTTP_PORT: String(port), HTTP_HOST: "127.0.0.1", ...env },
    sandboxOptions,
    emulatorOptions,
  );
  return { stack, base };
}

export async function startStack(
  name: string,
  env: Record<string, string> = {},
  sandboxOptions: SandboxOptions = {},
  emulatorOptions: EmulatorOptions = {},
): Promise<Stack> {
  const sandbox = await createSandbox({ token: PROVIDER_TOKEN, ...sandboxOptions });
  const emulator = await createTelegramEmulator(emulatorOptions);
  const store = testRedis(name);
  // The payment journal's folder: the stack's own, never the working tree's ./data.
  const dataDir = mkdtempSync(join(tmpdir(), "topup-data-"));
  const fullEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: env.DATABASE_URL ?? (await testDatabase(name)),
    BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.apiRoot,
    PROVIDER_BASE_URL: sandbox.baseUrl(),
    PROVIDER_TOKEN,
    PROVIDER_TIMEOUT_MS: "1000",
    PROVIDER_READ_RETRIES: "1",
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: store.prefix,
    TELEGRAM_POLL_TIMEOUT_SECONDS: "1",
    TOPUP_VERIFY_WINDOW_SECONDS: "2",
    TOPUP_LOCK_SECONDS: "2",
    RECONCILE_INTERVAL_SECONDS: "1",
    PROVIDER_PROBE_SECONDS: "1",
    CURRENCY: "NPR",
    PAYMENT_MODE: "none",
    TOPUP_USER_IDS: "*",
    LOG_LEVEL: "debug",
    ...env,
  };
  const captured = captureLogs("debug", fullEnv);
  const launch = async () => {
    const next = createApp(loadConfig(fullEnv), captured.logger);
    await next.start();
    return next;
  };
  const stack: Stack = {
    sandbox,
    emulator,
    env: fullEnv,
    logs: captured.lines,
    app: await launch(),
    async restart() {
      await stack.app.stop();
      stack.app = await launch();
    },
    async stop() {
      await stack.app.stop();
      await emulator.close();
      await sandbox.close();
      await store.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}
