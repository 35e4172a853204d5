import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCALES_DIRECTORY, Translator } from "../../src/bot/shared/i18n.js";

/** Message keys of one locale folder, per file. */
function keysOf(locale: string): Map<string, string[]> {
  const folder = join(LOCALES_DIRECTORY, locale);
  return new Map(
    readdirSync(folder)
      .filter((file) => file.endsWith(".ftl"))
      .map((file) => [
        file,
        readFileSync(join(folder, file), "utf8")
          .split("\n")
          .map((line) => /^([a-z][\w-]*)\s*=/.exec(line)?.[1])
          .filter((key): key is string => key !== undefined)
          .sort(),
      ]),
  );
}

describe("locale files", () => {
  it("exist for English and Nepali", () => {
    expect(readdirSync(LOCALES_DIRECTORY).sort()).toEqual(["en", "ne"]);
  });

  it("have exactly the same files and message keys", () => {
    const english = keysOf("en");
    expect([...english.values()].flat().length).toBeGreaterThan(50);
    expect(keysOf("ne")).toEqual(english);
  });

  it("define every key the source code asks for", () => {
    const english = new Set([...keysOf("en").values()].flat());
    const sourceDirectory = join(LOCALES_DIRECTORY, "../src/bot");
    const source = readdirSync(sourceDirectory, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => readFileSync(join(sourceDirectory, file), "utf8"))
      .join("\n");
    const literal = [...source.matchAll(/\bt\(\s*"([a-z][\w-]*)"/g)].map((m) => m[1]);
    const said = [...source.matchAll(/say\([^)]*?"([a-z][\w-]*)"/g)].map((m) => m[1]);
    // t(cond ? "a" : "b") and a choice of keys held in a constant before the call.
    const chosen = [
      ...source.matchAll(/\bt\(\s*[\w.() !=<>&|]+\?\s*"([a-z][\w-]*)"\s*:\s*"([a-z][\w-]*)"/g),
    ].flatMap((m) => [m[1], m[2]]);
    const missing = [...literal, ...said, ...chosen].filter((key) => key && !english.has(key));
    expect(missing).toEqual([]);
    expect(literal.length).toBeGreaterThan(100);
    // A key built from a prefix (t(`period-${…}`)) has at least one message of that prefix.
    const prefixes = [...source.matchAll(/\bt\(\s*`([a-z][\w-]*-)\$\{/g)].map((m) => m[1]);
    const unknown = prefixes.filter((p) => ![...english].some((key) => key.startsWith(p ?? "")));
    expect(prefixes.length).toBeGreaterThan(3);
    expect(unknown).toEqual([]);
  });
});

describe("Translator", () => {
  const translator = new Translator();

  it("keeps a text without variables per locale, and formats one with variables each time", () => {
    for (let i = 0; i < 2; i++) {
      expect(translator.t("en", "button-next")).toBe("Next ›");
      expect(translator.t("ne", "button-next")).toBe("अर्को ›");
      // An unknown locale reads English.
      expect(translator.t("fr", "button-next")).toBe("Next ›");
    }
    const page = (n: number) =>
      translator.t("en", "list-title-paged", { filter: "x", page: n, pages: 5 });
    expect(page(1)).toContain("page 1 of 5");
    expect(page(2)).toContain("page 2 of 5");
  });

  it("says which key is missing, each time", () => {
    expect(translator.t("en", "service-satellite")).toBe("{service-satellite}");
    expect(translator.t("ne", "service-satellite")).toBe("{service-satellite}");
  });
});
