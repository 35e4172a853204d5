import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCALES_DIRECTORY } from "../../src/bot/i18n.js";

const keysOf = (file: string) =>
  readFileSync(join(LOCALES_DIRECTORY, file), "utf8")
    .split("\n")
    .map((line) => /^([a-z][\w-]*)\s*=/.exec(line)?.[1])
    .filter((key): key is string => key !== undefined)
    .sort();

describe("locale files", () => {
  it("exist for English and Nepali", () => {
    expect(readdirSync(LOCALES_DIRECTORY).sort()).toEqual(["en.ftl", "ne.ftl"]);
  });

  it("have exactly the same message keys", () => {
    const english = keysOf("en.ftl");
    expect(english.length).toBeGreaterThan(50);
    expect(keysOf("ne.ftl")).toEqual(english);
  });

  it("define every key the source code asks for", () => {
    const english = new Set(keysOf("en.ftl"));
    const source = readdirSync(join(LOCALES_DIRECTORY, "../src/bot"), {
      recursive: true,
      encoding: "utf8",
    })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => readFileSync(join(LOCALES_DIRECTORY, "../src/bot", file), "utf8"))
      .join("\n");
    const literal = [...source.matchAll(/\bt\("([a-z][\w-]*)"/g)].map((m) => m[1]);
    const said = [...source.matchAll(/say\([^)]*?"([a-z][\w-]*)"/g)].map((m) => m[1]);
    const missing = [...literal, ...said].filter((key) => key && !english.has(key));
    expect(missing).toEqual([]);
  });
});
