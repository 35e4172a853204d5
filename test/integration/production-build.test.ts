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
import { freePort } from "../support/ports.js";
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
    const files = filesUnder(join(OUT, "dist"));
    expect(files.filter((file) => !file.startsWith("compile-cache/")).sort()).toEqual([
      "main.js",
      "main.js.map",
      "migrate.js",
      "migrate.js.map",
      // The Mini App's page (tools/build-webapp.mjs).
      "webapp/app.css",
      "webapp/app.js",
      "webapp/index.html",
    ]);
    // Node's compile cache of the bundle, which bin/start points NODE_COMPILE_CACHE to.
    expect(files.some((file) => file.startsWith("compile-cache/"))).toBe(true);
    const bundle = readFileSync(join(OUT, "dist/main.js"), "utf8");
    expect(bundle).not.toMatch(/telegram-emulator|tools\/sandbox|playground/);
    // What the build leaves out for memory (tools/build.mjs): undici's HTTP/2 client, which
    // would load node:http2, and zod's messages in languages other than English.
    expect(bundle).not.toContain("node:http2");
    expect(bundle).not.toContain("Kreditkartennummer"); // zod's German
    expect(bundle).toContain("undici/lib/dispatcher/pool.js");
    // grammY's own HTTP client (node-fetch, which calls the deprecated url.parse()) is left out.
    expect(bundle.includes("node_modules/node-fetch/")).toBe(false);
  });

  it("writes nothing to stderr but its own JSON log, and names errors by their classes", async () => {
    // A Telegram that refuses the command menus: the bot logs grammY's error and goes on.
    emulator.failNext("setMyCommands", { error_code: 400, description: "Bad Request: refused" });
    const out = { stdout: "", stderr: "" };
    // As production runs it: bin/start, then node on the bundle.
    const bot: ChildProcess = spawn("bin/start", [], {
      cwd: OUT,
      env: {
        ...botEnvironment(emulator, sandbox, {
          redisPrefix: `${store.prefix}stderr:`,
          databaseUrl: await testDatabase("production_stderr"),
        }),
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    bot.stdout?.on("data", (chunk) => (out.stdout += String(chunk)));
    bot.stderr?.on("data", (chunk) => (out.stderr += String(chunk)));
    const exited = new Promise<void>((done) => bot.once("exit", () => done()));
    const died = exited.then(() => {
      throw new Error(`the bot exited:\n${out.stdout}${out.stderr}`);
    });
    try {
      // The Bot API, the provider (both through undici) and the ledger, once each at least.
      const user = emulator.user({ id: 7011, first_name: "Quiet", language_code: "en" });
      const welcome = user.waitForText("Welcome", { timeoutMs: 10_000 });
      user.sendText("/start");
      await Promise.race([welcome, died]);
      const connections = user.waitForText("Which connection", { timeoutMs: 10_000 });
      user.sendText("/topup 1000002");
      await Promise.race([connections, died]);
    } finally {
      bot.kill("SIGTERM");
      await exited;
    }
    expect(bot.exitCode).toBe(0);
    const notOwnLog = (line: string) => {
      try {
        const record = JSON.parse(line) as { level?: unknown; time?: unknown; msg?: unknown };
        return !(typeof record.level === "number" && typeof record.msg === "string");
      } catch {
        return true;
      }
    };
    // Node's warnings (a deprecation, an experimental feature) and anything else a library
    // prints are written to stderr.
    expect(out.stderr.split("\n").filter((line) => line !== "" && notOwnLog(line))).toEqual([]);
    const menus = `${out.stdout}${out.stderr}`
      .split("\n")
      .filter((line) => line.includes("could not set the command menus"))
      .map((line) => JSON.parse(line) as { err?: { type?: string } });
    expect(menus.map((line) => line.err?.type)).toEqual(["GrammyError"]);
  });

  it("serves the Mini App's page from beside the bundle (dist/webapp) and offers the shop under /start", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let output = "";
    const bot: ChildProcess = spawn("bin/start", [], {
      cwd: OUT,
      env: {
        ...botEnvironment(emulator, sandbox, {
          redisPrefix: `${store.prefix}app:`,
          databaseUrl: await testDatabase("production_app"),
        }),
        PUBLIC_URL: base,
        HTTP_PORT: String(port),
        HTTP_HOST: "127.0.0.1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    bot.stdout?.on("data", (chunk) => (output += String(chunk)));
    bot.stderr?.on("data", (chunk) => (output += String(chunk)));
    const exited = new Promise<void>((done) => bot.once("exit", () => done()));
    const died = exited.then(() => {
      throw new Error(`the bot exited:\n${output}`);
    });
    try {
      const user = emulator.user({ id: 7021, first_name: "Shop", language_code: "en" });
      const welcome = user.waitForText("Welcome", { timeoutMs: 10_000 });
      user.sendText("/start");
      const buttons = (await Promise.race([welcome, died])).reply_markup?.inline_keyboard.flat();
      expect(buttons?.find((button) => "web_app" in button)?.web_app?.url).toBe(`${base}/app/`);
      const page = await fetch(`${base}/app/`);
      expect(page.status).toBe(200);
      // The page carries the script it was built with (the same as dist/webapp/app.js).
      const html = await page.text();
      const script = await fetch(`${base}/app/app.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
      expect(html).toContain(`<script type="module">${await script.text()}</script>`);
      expect(output).not.toContain("the Mini App's page is not built");
    } finally {
      bot.kill("SIGTERM");
      await exited;
    }
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
