// What ships: `npm run build` bundles src/ alone into dist/main.js, and the result starts with
// the production dependencies only (what `npm ci --omit=dev` installs), against the emulator and the sandbox.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../tools/sandbox/server.js";
import {
  createTelegramEmulator,
  type TelegramEmulator,
} from "../../tools/telegram-emulator/index.js";
import { botEnvironment } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { testDatabase } from "../support/postgres.js";
import { testRedis } from "../support/redis.js";
import { BOT_TOKEN, PROVIDER_TOKEN } from "../support/stack.js";

const ROOT = resolve(".");
const ADMIN = 7002;
// Outside the repository, so that nothing resolves from its node_modules by walking up.
const OUT = join(tmpdir(), `topup-production-${process.pid}`);

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/** A production install: package.json, bin/, dist/, locales/, production dependencies. */
function productionInstall(): void {
  mkdirSync(join(OUT, "node_modules"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(OUT, "package.json"));
  cpSync(join(ROOT, "bin"), join(OUT, "bin"), { recursive: true });
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
  const build = spawnSync(process.execPath, ["tools/build.mjs", join(OUT, "dist")], {
    cwd: ROOT,
    encoding: "utf8",
  });
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
    expect(filesUnder(join(OUT, "dist")).sort()).toEqual([
      "main.js",
      "main.js.map",
      "migrate.js",
      "migrate.js.map",
    ]);
    const bundle = readFileSync(join(OUT, "dist/main.js"), "utf8");
    expect(bundle).not.toMatch(/telegram-emulator|tools\/sandbox|playground/);
    // What the build leaves out for memory (tools/build.mjs): undici's HTTP/2 client, which
    // would load node:http2, and zod's messages in languages other than English.
    expect(bundle).not.toContain("node:http2");
    expect(bundle).not.toContain("Kreditkartennummer"); // zod's German
    expect(bundle).toContain("undici/lib/dispatcher/pool.js");
  });

  it("starts by npm run start:prod with production dependencies only, answers /start and broadcasts", async () => {
    let output = "";
    // As an operator runs it outside Docker: npm, then bin/start, then node (each one exec's).
    const bot: ChildProcess = spawn("npm", ["run", "start:prod", "--silent"], {
      cwd: OUT,
      env: {
        ...botEnvironment(emulator, sandbox, {
          redisPrefix: store.prefix,
          databaseUrl: await testDatabase("production_build"),
        }),
        LOG_LEVEL: "info",
        ADMIN_USER_IDS: String(ADMIN),
      },
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
      // The production memory settings apply: a heap of 96 MB plus the young generation, not
      // the machine's default (gigabytes).
      const started = output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; pid?: number; heapLimitMb?: number })
        .find((line) => line.msg === "bot started");
      expect(started?.heapLimitMb).toBeGreaterThanOrEqual(96);
      expect(started?.heapLimitMb).toBeLessThanOrEqual(150);
      // npm's own child, which npm signals and waits for: no shell left in between.
      const stat = readFileSync(`/proc/${started?.pid}/stat`, "utf8");
      expect(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])).toBe(bot.pid);

      // BullMQ comes from node_modules, beside the bundle, and takes the bundle's connection.
      const admin = emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
      await expectReply(admin, () => admin.sendText("/broadcast"), "Send the message to broadcast");
      await expectReply(admin, () => admin.sendText("Hello from the build"), "Who should receive");
      await expectReply(admin, () => admin.press("Everyone"), "exactly as recipients will see it");
      const report = admin.waitForText("Broadcast finished", { timeoutMs: 10_000 });
      admin.press("✅ Send");
      await Promise.race([report, died]);
      expect(user.messages().some((message) => message.text === "Hello from the build")).toBe(true);
    } finally {
      bot.kill("SIGTERM");
      await exited;
    }
    expect(bot.exitCode).toBe(0);
  });
});
