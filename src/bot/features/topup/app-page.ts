// The Mini App's page at PUBLIC_URL/app: the files `npm run build` (dist/webapp/) or
// `npm run build:webapp` (webapp/dist/) made, and its texts from locales/ (app.ftl) in the
// language asked. Its script and styles come from this server only; Telegram's clients frame it.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Translator } from "../../shared/i18n.js";

/**
 * Beside the bundle (dist/main.js → dist/webapp: relative to the module's file, "./" is its
 * folder), or built from the source tree; looked for when the app starts (a build may come
 * after this module is loaded).
 */
const webappDirectory = () =>
  ["./webapp", "../../../../webapp/dist"]
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((directory) => existsSync(join(directory, "app.js")));

/** Whether the page was built (without it the chat offers no shop button). */
export const appPageBuilt = () => webappDirectory() !== undefined;

const FILES = [
  { name: "index.html", contentType: "text/html; charset=utf-8" },
  { name: "app.js", contentType: "text/javascript; charset=utf-8" },
  { name: "app.css", contentType: "text/css; charset=utf-8" },
] as const;

/**
 * Its own script, styles and API only; framed by Telegram's web clients (and, on a loopback
 * address, by the playground's emulator page). The page's own script and styles, put into it,
 * are allowed by their hashes.
 */
const appPolicy = (loopback: boolean, inline: { script?: string; style?: string } = {}) =>
  [
    "default-src 'none'",
    `script-src 'self'${inline.script ? ` '${inline.script}'` : ""}`,
    `style-src 'self'${inline.style ? ` '${inline.style}'` : ""}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    `frame-ancestors https://web.telegram.org${loopback ? " http://127.0.0.1:* http://localhost:*" : ""}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");

/** A CSP source for an inline element's exact text. */
const hashOf = (text: string) => `sha256-${createHash("sha256").update(text).digest("base64")}`;

/** The page's routes under `path`; undefined when the page was never built. */
export function appPageRoutes(path: string, i18n: Translator, publicUrl: string) {
  const directory = webappDirectory();
  if (directory === undefined) return undefined;
  const loopback = new URL(publicUrl).protocol === "http:";
  const csp = appPolicy(loopback);
  const read = (name: string) => readFileSync(join(directory, name), "utf8");
  // The page carries its script, its styles and its texts in both languages: the first screen
  // waits for one round trip (the page) before its first API call, not two (over a phone's
  // network, each is a few hundred ms). Read and filled in at the first request, off the
  // start's critical path.
  let page: { html: string; csp: string } | undefined;
  const built = () => {
    if (page) return page;
    const texts = JSON.stringify({
      en: i18n.texts("en", "app-"),
      ne: i18n.texts("ne", "app-"),
    }).replaceAll("<", "\\u003c");
    const script = read("app.js");
    const style = read("app.css");
    // A text that could end its element early stays in its own file.
    const inlineScript = !/<\/script|<!--/i.test(script);
    const inlineStyle = !/<\/style/i.test(style);
    const html = read("index.html")
      .replace(
        /<!--texts:[^>]*-->/,
        () => `<script type="application/json" id="texts">${texts}</script>`,
      )
      .replace(/<script type="module" src="app\.js"><\/script>/, (tag) =>
        inlineScript ? `<script type="module">${script}</script>` : tag,
      )
      .replace(/<link rel="stylesheet" href="app\.css">/, (tag) =>
        inlineStyle ? `<style>${style}</style>` : tag,
      );
    page = {
      html,
      csp: appPolicy(loopback, {
        ...(inlineScript && { script: hashOf(script) }),
        ...(inlineStyle && { style: hashOf(style) }),
      }),
    };
    return page;
  };
  const files = FILES.map(({ name, contentType }) => {
    if (name === "index.html") {
      return {
        // At `${path}/`, so that its relative addresses (api/) stay under it.
        path: `${path}/`,
        contentType,
        body: () => built().html,
        get csp() {
          return built().csp;
        },
      };
    }
    let text: string | undefined;
    return {
      path: `${path}/${name}`,
      contentType,
      body: () => {
        text ??= read(name);
        return text;
      },
      csp,
    };
  });
  const texts = {
    path: `${path}/texts.json`,
    contentType: "application/json; charset=utf-8",
    body: (query: URLSearchParams) =>
      JSON.stringify(i18n.texts(query.get("lang") === "ne" ? "ne" : "en", "app-")),
    csp,
  };
  return [...files, texts];
}
