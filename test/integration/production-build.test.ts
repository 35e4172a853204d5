// What ships: `npm run build` compiles src/ alone, and the result starts with the production
// dependencies only (what `npm ci --omit=dev` installs), against the emulator and the sandbox.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../tools/sandbox/server.js";
import {
  createTelegramEmulator,
  type TelegramEmulator,
} from "../../tools/telegram-emulator/index.js";
import { botEnvironment } from "../support/bot-process.js";
import { testRedis } from "../support/redis.js";
import { BOT_TOKEN, PROVIDER_TOKEN } from "../support/stack.js";

const ROOT = resolve(".");
// Outside the repository, so that nothing resolves from its node_modules by walking up.
const OUT = join(tmpdir(), `topup-production-${process.pid}`);

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/** A folder that looks like a production install: package.json, dist/, locales/, prod deps. */
function productionInstall(): void {
  mkdirSync(join(OUT, "node_modules"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(OUT, "package.json"));
  symlinkSync(join(ROOT, "locales"), join(OUT, "locales"));
  const listed = spawnSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const topLevel = listed.stdout
    .split("\n")
    .map((path) => relative(join(ROOT, "node_modules"), path))
    .filter((name) => /^(@[\w.-]+\/)?\w[\w.-]*$/.test(name));
  for (const name of new Set(topLevel)) {
    mkdirSync(join(OUT, "node_modules", name, ".."), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", name), join(OUT, "node_modules", name));
  }
}

let sandbox: Sandbox;
let emulator: TelegramEmulator;
const store = testRedis("production");

beforeAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  const build = spawnSync(
    process.execPath,
    [
      join(ROOT, "node_modules/typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--outDir",
      join(OUT, "dist"),
    ],
    { cwd: ROOT, encoding: "utf8" },
  );
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  productionInstall();
  sandbox = await createSandbox({ token: PROVIDER_TOKEN });
  emulator = await createTelegramEmulator({ bots: [{ token: BOT_TOKEN }] });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  await sandbox?.close();
  await store.cleanup();
  rmSync(OUT, { recursive: true, force: true });
});

describe("the production build", () => {
  it("holds the product only: no sandbox, emulator or playground", () => {
    const files = filesUnder(join(OUT, "dist"));
    expect(files).toContain("main.js");
    expect(files.filter((file) => /sandbox|emulator|playground|demo/.test(file))).toEqual([]);
    expect(
      files.every((file) => /^(main|app|config)\.js|^(domain|adapters|bot)\//.test(file)),
    ).toBe(true);
  });

  it("starts with production dependencies only and answers /start", async () => {
    let output = "";
    const bot: ChildProcess = spawn(process.execPath, ["dist/main.js"], {
      cwd: OUT,
      env: { ...botEnvironment(emulator, sandbox, store.prefix), LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    bot.stdout?.on("data", (chunk) => (output += String(chunk)));
    bot.stderr?.on("data", (chunk) => (output += String(chunk)));
    const exited = new Promise<void>((done) => bot.once("exit", () => done()));
    try {
      const user = emulator.user({ id: 7001, first_name: "Prod", language_code: "en" });
      const welcome = user.waitForText("Welcome", { timeoutMs: 10_000 });
      user.sendText("/start");
      const died = exited.then(() => {
        throw new Error(`the bot exited:\n${output}`);
      });
      await Promise.race([welcome, died]);
      expect(output).toContain("bot started");
    } finally {
      bot.kill("SIGTERM");
      await exited;
    }
  });
});
