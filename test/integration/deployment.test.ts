// The deployment recipe. The Dockerfile and .dockerignore are checked as text (no Docker engine
// needed); compose.yaml is validated by `docker compose config` (or `docker-compose config`)
// when a Compose client is installed, and skipped otherwise. No image is built here.
import { type ExecFileException, execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------
// The Dockerfile, read as instructions.

interface Stage {
  from: string;
  name: string | undefined;
  instructions: { keyword: string; args: string }[];
}

function dockerfileStages(text: string): Stage[] {
  const lines = text
    .replace(/\\\r?\n/g, " ")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword = "", args = ""] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      stages.push({ from: from[1] ?? "", name: from[2], instructions: [] });
      continue;
    }
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

function argsOf(stage: Stage | undefined, keyword: string): string[] {
  return (stage?.instructions ?? [])
    .filter((instruction) => instruction.keyword === keyword)
    .map((instruction) => instruction.args);
}

/** The sources of a COPY (its flags dropped, the destination last). */
function copySources(args: string): { from: string | undefined; sources: string[] } {
  const words = args.split(/\s+/);
  const from = words.find((word) => word.startsWith("--from="))?.slice("--from=".length);
  const paths = words.filter((word) => !word.startsWith("--"));
  return { from, sources: paths.slice(0, -1) };
}

describe("the Dockerfile", () => {
  const stages = dockerfileStages(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
  const byName = (name: string) => stages.find((stage) => stage.name === name);
  const runtime = stages.at(-1);

  it("ends with the runtime stage, so that a plain `docker build .` gives the bot", () => {
    expect(stages.map((stage) => stage.name)).toEqual(["build", "sandbox", "runtime"]);
    expect(runtime?.name).toBe("runtime");
    // A fresh base, not the build stage: no dev dependencies, no sources, no tools.
    expect(runtime?.from).toBe("node:24-bookworm-slim");
    expect(byName("build")?.from).toBe("node:24-bookworm-slim");
  });

  it("compiles in the build stage", () => {
    const build = byName("build");
    expect(argsOf(build, "RUN")).toContain("npm ci --no-audit --no-fund");
    expect(argsOf(build, "RUN")).toContain("npm run build");
  });

  it("runs bin/start (node dist/main.js) under tini as the unprivileged node user, never npm", () => {
    expect(argsOf(runtime, "USER").at(-1)).toBe("node");
    expect(argsOf(runtime, "ENTRYPOINT")).toEqual(['["/usr/bin/tini", "--"]']);
    expect(argsOf(runtime, "CMD")).toEqual(['["bin/start"]']);
    // The memory settings live in bin/start alone, which every production start goes through.
    expect(argsOf(runtime, "ENV").join(" ")).not.toMatch(/NODE_OPTIONS|MALLOC_ARENA_MAX/);
    expect(argsOf(runtime, "RUN").join("\n")).toMatch(/apt-get install .*\btini\b/);
    expect(argsOf(runtime, "ENV").join(" ")).toMatch(/\bNODE_ENV=production\b/);
    expect(argsOf(runtime, "EXPOSE")).toEqual(["8080"]);
    expect(argsOf(runtime, "STOPSIGNAL")).toEqual(["SIGTERM"]);
  });

  it("keeps /data (the payment journal, the embedded ledger) in a volume, not the container", () => {
    expect(argsOf(runtime, "ENV").join(" ")).toMatch(/\bDATA_DIR=\/data\b/);
    expect(argsOf(runtime, "VOLUME")).toEqual(['["/data"]']);
  });

  it("checks /healthz with node's fetch (slim images have no curl)", () => {
    const [healthcheck = ""] = argsOf(runtime, "HEALTHCHECK");
    expect(healthcheck).toMatch(/CMD \["node", "-e", ".*fetch\(.*\/healthz/);
    expect(healthcheck).toContain("process.env.HTTP_PORT||8080");
    expect(healthcheck).not.toMatch(/\b(curl|wget)\b/);
  });

  it("ships production dependencies, the build and the locales only", () => {
    expect(argsOf(runtime, "RUN").join("\n")).toContain("npm ci --omit=dev");
    const copies = argsOf(runtime, "COPY").map(copySources);
    expect(copies).toEqual([
      { from: undefined, sources: ["package.json", "package-lock.json"] },
      { from: "build", sources: ["/app/dist"] },
      { from: undefined, sources: ["locales"] },
      { from: undefined, sources: ["bin"] },
    ]);
    expect(argsOf(runtime, "ADD")).toEqual([]);
  });

  it("runs the provider sandbox from the build stage, on every interface", () => {
    const sandbox = byName("sandbox");
    expect(sandbox?.from).toBe("build");
    expect(argsOf(sandbox, "COPY").map(copySources)).toContainEqual({
      from: undefined,
      sources: ["tools"],
    });
    expect(argsOf(sandbox, "ENV").join(" ")).toMatch(/\bSANDBOX_HOST=0\.0\.0\.0\b/);
    expect(argsOf(sandbox, "CMD").join(" ")).toContain("tools/sandbox/main.ts");
    expect(argsOf(sandbox, "USER").at(-1)).toBe("node");
  });
});

/** Whether a .dockerignore pattern leaves a path (or a folder holding it) out of the context. */
function ignores(pattern: string, path: string): boolean {
  const literal = (part: string) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  const source = pattern
    .replace(/^\/+/, "")
    .split("**/")
    .map((part) => part.split("*").map(literal).join("[^/]*"))
    .join("(?:.*/)?");
  return new RegExp(`^${source}(?:/.*)?$`).test(path);
}

describe("the build context (.dockerignore)", () => {
  const patterns = readFileSync(join(ROOT, ".dockerignore"), "utf8")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const ignored = (path: string) => patterns.some((pattern) => ignores(pattern, path));

  it("leaves out dependencies, build output, tests, secrets and the history", () => {
    expect(patterns.filter((pattern) => pattern.startsWith("!"))).toEqual([]);
    for (const path of [
      "node_modules/grammy/package.json",
      "tools/node_modules/x.js",
      "dist/main.js",
      "test/unit/config.test.ts",
      "test-output/report.json",
      "bench/journey.ts",
      "docs/architecture.md",
      "coverage/index.html",
      "npm-debug.log",
      ".env",
      ".env.production",
      ".git/HEAD",
    ]) {
      expect(ignored(path), path).toBe(true);
    }
  });

  it("keeps what the stages copy: package files, sources, locales, bin, tools", () => {
    for (const path of [
      "bin/start",
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tools/build.mjs",
      "src/main.ts",
      "locales/en/topup.ftl",
      "tools/sandbox/main.ts",
      "Dockerfile",
    ]) {
      expect(ignored(path), path).toBe(false);
    }
  });
});

describe("compose.yaml (as text)", () => {
  const text = readFileSync(join(ROOT, "compose.yaml"), "utf8");

  it("has no version key (the Compose specification)", () => {
    expect(text).not.toMatch(/^version:/m);
  });

  it("gives the bot's /data (its payment journal) a named volume", () => {
    const bot = text.slice(text.indexOf("\n  bot:"), text.indexOf("\n  sandbox:"));
    expect(bot).toMatch(/volumes:\s*\n\s*- bot-data:\/data/);
    expect(text).toMatch(/^volumes:[\s\S]*^ {2}bot-data:/m);
  });

  it("gives the bot longer to stop than its drain takes", () => {
    const grace = Number(/SHUTDOWN_GRACE_SECONDS: "(\d+)"/.exec(text)?.[1]);
    const stop = Number(/stop_grace_period: (\d+)s/.exec(text)?.[1]);
    expect(grace).toBeGreaterThan(0);
    expect(stop).toBeGreaterThan(grace);
  });
});

// ---------------------------------------------------------------------------------------------
// compose.yaml, validated by Compose itself.

interface Compose {
  command: string;
  args: string[];
  /** docker-compose 1.x prints services of inactive profiles in `config`; v2 leaves them out. */
  legacy: boolean;
}

function findCompose(): Compose | undefined {
  const candidates: [string, string[]][] = [
    ["docker", ["compose"]],
    ["docker-compose", []],
  ];
  for (const [command, args] of candidates) {
    try {
      const version = execFileSync(command, [...args, "version"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 10_000,
      });
      return { command, args, legacy: /version 1\./i.test(version) };
    } catch {
      // Not installed, or docker without the compose plugin.
    }
  }
  return undefined;
}

const compose = findCompose();

/** Variables compose.yaml reads, and Compose's own: never taken from the developer's shell. */
const CONTROLLED =
  /^(BOT_TOKEN|PROVIDER_\w+|PAYMENT_MODE|TOPUP_USER_IDS|POSTGRES_\w+|DATABASE_\w+|WEBHOOK_\w+|REDIS_\w+|HTTP_\w+|SANDBOX_\w+|SHUTDOWN_\w+|ADMIN_USER_IDS|SUPPORT_CHAT_IDS|STAFF_USER_IDS|REFUND_USER_IDS|LOG_LEVEL|COMPOSE_\w+)$/;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The text of one service in `config`'s output (services are indented by two spaces). */
function serviceBlock(config: string, name: string): string | undefined {
  const lines = config.split("\n");
  const start = lines.indexOf(`  ${name}:`);
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && /^ {0,2}\S/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

describe.skipIf(!compose)("compose.yaml (validated by Compose)", () => {
  const required = {
    BOT_TOKEN: "123:secret",
    PROVIDER_TOKEN: "provider-token",
    POSTGRES_PASSWORD: "ledgerpass",
  };
  let scratch = "";
  let emptyEnvFile = "";

  beforeAll(() => {
    // An empty env file: a developer's .env in the repository must not change the outcome.
    scratch = mkdtempSync(join(tmpdir(), "topup-compose-"));
    emptyEnvFile = join(scratch, "empty.env");
    writeFileSync(emptyEnvFile, "");
  });

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function config(
    variables: Record<string, string>,
    options: { profile?: string; services?: boolean } = {},
  ): Promise<Outcome> {
    const { command, args } = compose as Compose;
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (!CONTROLLED.test(name)) env[name] = value;
    }
    const argv = [
      ...args,
      "--env-file",
      emptyEnvFile,
      "-f",
      "compose.yaml",
      ...(options.profile ? ["--profile", options.profile] : []),
      "config",
      ...(options.services ? ["--services"] : []),
    ];
    try {
      const { stdout, stderr } = await run(command, argv, {
        cwd: ROOT,
        env: { ...env, ...variables },
        timeout: 30_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as ExecFileException & { stdout?: string; stderr?: string };
      return {
        code: typeof failure.code === "number" ? failure.code : -1,
        stdout: failure.stdout ?? "",
        stderr: failure.stderr || failure.message,
      };
    }
  }

  it("is valid with the three secrets: the ledger and Redis kept, the bot checked and stopped gently", async () => {
    const result = await config(required);
    expect(result.code, result.stderr).toBe(0);

    const redis = serviceBlock(result.stdout, "redis") ?? "";
    expect(redis).toContain("image: redis:7-alpine");
    expect(redis).toContain("--appendonly");
    expect(redis).toContain("--appendfsync");
    expect(redis).toContain("everysec");
    expect(redis).toContain("--maxmemory-policy");
    expect(redis).toContain("noeviction");
    expect(redis).toContain("redis-cli");
    expect(redis).toMatch(/redis-data:\/data/);

    const postgres = serviceBlock(result.stdout, "postgres") ?? "";
    expect(postgres).toContain("image: postgres:16-alpine");
    expect(postgres).toContain("pg_isready");
    expect(postgres).toMatch(/postgres-data:\/var\/lib\/postgresql\/data/);
    expect(postgres).not.toContain("ports:");

    const bot = serviceBlock(result.stdout, "bot") ?? "";
    expect(bot).toContain("DATABASE_URL: postgres://topup:ledgerpass@postgres:5432/topup");
    expect(bot).toMatch(/postgres:\s*\n\s*condition: service_healthy/);
    expect(bot).toContain("target: runtime");
    expect(bot).toContain("/healthz");
    expect(bot).toContain("condition: service_healthy");
    expect(bot).toMatch(/stop_grace_period: (30s|"30s")/);
    expect(bot).toContain("REDIS_URL: redis://redis:6379");
    expect(bot).toMatch(/HTTP_PORT: ["']?8080/);
    expect(bot).toContain("BOT_TOKEN: 123:secret");
    expect(bot).toMatch(/bot-data:\/data|target: \/data/);
  });

  it("starts no sandbox without the trial profile", async () => {
    const result = await config(required);
    expect(result.code, result.stderr).toBe(0);
    const sandbox = serviceBlock(result.stdout, "sandbox");
    if (compose?.legacy) {
      // docker-compose 1.x prints every service; `up` starts the sandbox only with the profile.
      expect(sandbox).toMatch(/profiles:\s*\n\s*- trial/);
    } else {
      expect(sandbox).toBeUndefined();
      const services = await config(required, { services: true });
      expect(services.stdout.split(/\s+/)).not.toContain("sandbox");
    }
  });

  it("adds the provider sandbox with the trial profile", async () => {
    const result = await config(required, { profile: "trial" });
    expect(result.code, result.stderr).toBe(0);
    const sandbox = serviceBlock(result.stdout, "sandbox") ?? "";
    expect(sandbox).toContain("target: sandbox");
    expect(sandbox).toContain("SANDBOX_HOST: 0.0.0.0");
    expect(sandbox).toContain("SANDBOX_TOKEN: provider-token");
    expect(sandbox).toContain("/_sandbox/");
    const services = await config(required, { profile: "trial", services: true });
    expect(services.stdout.split(/\s+/)).toEqual(
      expect.arrayContaining(["postgres", "redis", "bot", "sandbox"]),
    );
  });

  it("refuses without BOT_TOKEN", async () => {
    const result = await config({
      PROVIDER_TOKEN: "provider-token",
      POSTGRES_PASSWORD: "ledgerpass",
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/BOT_TOKEN/);
  });

  it("refuses without PROVIDER_TOKEN", async () => {
    const result = await config({ BOT_TOKEN: "123:secret", POSTGRES_PASSWORD: "ledgerpass" });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/PROVIDER_TOKEN/);
  });

  it("refuses without POSTGRES_PASSWORD", async () => {
    const result = await config({ BOT_TOKEN: "123:secret", PROVIDER_TOKEN: "provider-token" });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/POSTGRES_PASSWORD/);
  });

  it("passes webhook mode and a real provider through", async () => {
    const result = await config({
      ...required,
      WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
      WEBHOOK_SECRET: "s3cret_value_of_at_least_32_chars",
      PROVIDER_BASE_URL: "https://provider.example",
    });
    expect(result.code, result.stderr).toBe(0);
    const bot = serviceBlock(result.stdout, "bot") ?? "";
    expect(bot).toContain("WEBHOOK_URL: https://bot.example.com/telegram/webhook");
    expect(bot).toContain("WEBHOOK_SECRET: s3cret_value_of_at_least_32_chars");
    expect(bot).toContain("PROVIDER_BASE_URL: https://provider.example");
  });
});
