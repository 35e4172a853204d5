// The boundary lint (`npm run lint` runs dependency-cruiser with .dependency-cruiser.cjs) fails
// on the violations it exists for: shown on a small tree written for the purpose.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(".");
const CRUISER = join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");
// Inside the repository so that packages resolve from its node_modules; git ignores it.
const FIXTURE = join(ROOT, "test-output", `architecture-${process.pid}`);

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(cwd: string, paths: string[]): Violation[] {
  const run = spawnSync(
    process.execPath,
    [CRUISER, ...paths, "--config", CONFIG, "--output-type", "json"],
    // The project's graph is more than spawnSync's default 1 MiB of output.
    { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.stdout === "") throw new Error(`dependency-cruiser failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(FIXTURE, path)), { recursive: true });
    writeFileSync(join(FIXTURE, path), text);
  }
}

afterAll(() => rmSync(FIXTURE, { recursive: true, force: true }));

describe("the boundary lint", () => {
  it("finds nothing to complain about in the project itself", () => {
    expect(cruise(ROOT, ["src", "tools", "test", "bench", "webapp"])).toEqual([]);
  });

  it("fails on a domain that imports grammY, features that import each other, a cycle, tools in src, the bot reaching into the wiring, the Mini App's page and the bot importing each other", () => {
    write({
      "tsconfig.json": JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true },
      }),
      "src/domain/purchase.ts":
        'import type { Bot } from "grammy";\nimport { escape } from "../bot/shared/html.js";\nexport type B = Bot;\nexport const e = escape;\n',
      "src/bot/shared/html.ts": "export const escape = (text: string) => text;\n",
      "src/bot/features/support/view.ts":
        'import { menu } from "../topup/menu.js";\nexport const v = menu;\n',
      "src/bot/features/topup/menu.ts": "export const menu = 1;\n",
      "src/bot/shared/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/bot/shared/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
      "src/app.ts": 'import { fake } from "../tools/sandbox/fake.js";\nexport const app = fake;\n',
      "tools/sandbox/fake.ts": "export const fake = 1;\n",
      "src/bot/deps.ts":
        'import { stores } from "../wiring/stores.js";\nexport const d = stores;\n',
      "src/wiring/stores.ts": "export const stores = 1;\n",
      "webapp/app.ts": 'import { d } from "../src/bot/deps.js";\nexport const page = d;\n',
      "src/bot/features/topup/app-page.ts":
        'import { page } from "../../../../webapp/app.js";\nexport const p = page;\n',
    });
    const rules = new Set(cruise(FIXTURE, ["src", "tools", "webapp"]).map((v) => v.rule.name));
    expect(rules).toEqual(
      new Set([
        "domain-is-pure",
        "domain-imports-only-domain",
        "features-are-independent",
        "no-cycles",
        "only-the-root-wires",
        "product-never-imports-tools",
        "the-page-stands-alone",
        "nothing-imports-the-page",
      ]),
    );
  });
});
