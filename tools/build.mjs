// `npm run build`: src/main.ts and everything it imports, bundled into dist/main.js.
//
// One file starts in about half the time of the ~300 modules Node would otherwise resolve,
// read and compile one by one, and idles about 15 MB smaller (bench/RESULTS.md). Types are
// checked by `npm run typecheck`. BullMQ stays a package: it is loaded only when a broadcast
// runs, and it reads its Lua scripts from its own folder. So does PGlite, the embedded ledger:
// loaded only without DATABASE_URL, it reads its WebAssembly and data files from its folder.
// The ledger's migrations are modules, bundled like the rest. So is undici, the HTTP client of
// every outbound call: its modules run on the first call (src/adapters/http-client.ts).
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve, sep } from "node:path";
import { build } from "esbuild";
import { buildWebapp } from "./build-webapp.mjs";

/**
 * undici's HTTP/2 client, never used (tools/undici-http1-only.cjs), is left out. Its HTTP
 * parser's WebAssembly, two 72 KB base64 strings of which one is used, stays in the package
 * and is read from there by the first request: in the bundle both would sit in the heap.
 */
const undiciHttp1Only = {
  name: "undici-http1-only",
  setup(esbuild) {
    const inUndici = (args) => args.importer.includes(`undici${sep}lib${sep}`);
    esbuild.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      inUndici(args) ? { path: resolve("tools/undici-http1-only.cjs") } : undefined,
    );
    esbuild.onResolve({ filter: /^\.\.\/llhttp\/llhttp(_simd)?-wasm\.js$/ }, (args) =>
      inUndici(args)
        ? { path: `undici/lib/llhttp/${args.path.slice("../llhttp/".length)}`, external: true }
        : undefined,
    );
  },
};

/** prom-client without its Pushgateway (tools/prom-client-no-pushgateway.cjs). */
const promClientScrapedOnly = {
  name: "prom-client-scraped-only",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/lib\/pushgateway$/ }, (args) =>
      args.importer.includes(`prom-client${sep}`)
        ? { path: resolve("tools/prom-client-no-pushgateway.cjs") }
        : undefined,
    );
  },
};

/** zod's messages in English only (tools/zod-locales-en-only.js). */
const zodInEnglishOnly = {
  name: "zod-in-english-only",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`zod${sep}v4${sep}`)
        ? { path: resolve("tools/zod-locales-en-only.js") }
        : undefined,
    );
  },
};

/**
 * Node's built-in modules, imported by the bundle's ES modules, are required instead. For an
 * `import` Node builds an ES module of the built-in's exports and reads each of them once,
 * lazy getters included: `node:http`'s WebSocket loads Node's own fetch (its undici), HTTP/2,
 * zlib and worker threads; `node:fs`'s promises a REPL's history; `node:crypto`'s webcrypto.
 * require() returns the module as it is, and a getter runs only if the bot reads it (2 MB of
 * idle RSS on Node 24, bench/RESULTS.md).
 */
const builtinsRequired = {
  name: "builtins-required",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === "import-statement" ? { path: args.path, namespace: "builtin" } : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
    }));
  },
};

const outdir = process.argv[2] ?? "dist";

rmSync(outdir, { recursive: true, force: true });
await build({
  // The bot, and `npm run migrate` for a deploy that migrates the ledger first.
  entryPoints: ["src/main.ts", "src/migrate.ts"],
  outdir,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  // The report's chart libraries, loaded by the first report (resvg is a native binary);
  // Fonepay's QR image and socket client, loaded by the first Fonepay offer.
  external: ["bullmq", "@electric-sql/pglite", "echarts", "@resvg/resvg-js", "qrcode", "ws"],
  // Classes and functions keep the names they were written with: where two modules use one name,
  // esbuild renames one of them (`GrammyError4`), and the logs name an error's type by its class.
  // See NAME_IF_RENAMED below for its cost.
  keepNames: true,
  // grammY's and the runner's AbortController polyfill: the built-in classes instead (see the
  // file). grammY's HTTP client, node-fetch, is left out: the bot hands it a fetch on undici (see
  // the file). The production-build test runs the bundle against Telegram, Redis and BullMQ.
  alias: {
    "abort-controller": "./tools/native-abort-controller.cjs",
    "node-fetch": "./tools/no-node-fetch.cjs",
  },
  plugins: [undiciHttp1Only, promClientScrapedOnly, zodInEnglishOnly, builtinsRequired],
  sourcemap: true,
  // V8 keeps the bundle's source in the heap for lazy compilation: without the packages'
  // comments and indentation it is 40% smaller (1.4 MB of idle RSS). Identifiers are not shortened, so
  // stack traces and class names read as written.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  // The CommonJS packages in the bundle call require() for Node's own modules.
  banner: {
    js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
  },
  logLevel: "warning",
});

/**
 * keepNames names each function and class through esbuild's `__name`, which defines `name` on
 * every one of them (about 3 MB of idle RSS, and a call per closure created). Only the few that
 * esbuild renamed (`GrammyError5`) need it: the others bear their own name already.
 */
const NAME_HELPER = 'var __name=(target,value)=>__defProp(target,"name",{value,configurable:!0})';
const NAME_IF_RENAMED =
  'var __name=(target,value)=>target.name===value?target:__defProp(target,"name",{value,configurable:!0})';

// V8 keeps a script's source in the heap for lazy compilation, at two bytes per character if
// a single one is outside Latin-1: the emoji in the packages' doc comments (esbuild keeps
// comments and escapes only code) cost 3 MB. Escaped, the bundle is ASCII and stored at one
// byte per character; an escape means the same as its character in a string, regex or comment.
for (const bundle of [`${outdir}/main.js`, `${outdir}/migrate.js`]) {
  const source = readFileSync(bundle, "utf8");
  if (!source.includes(NAME_HELPER)) throw new Error(`esbuild's __name changed in ${bundle}`);
  writeFileSync(
    bundle,
    source
      .replace(NAME_HELPER, NAME_IF_RENAMED)
      .replace(
        /[\u0080-\uffff]/g,
        (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
      ),
  );
}

// Node's compile cache for the bundle (bin/start points NODE_COMPILE_CACHE here): V8 reads the
// bundle's compiled top level from it instead of parsing 2 MB of source at every start (about
// 90 ms of the start, bench/RESULTS.md). Written by evaluating the bundle once, without a
// configuration: it stops at "Invalid configuration" before it connects anywhere. A cache of
// another Node version, or of another build, is ignored by Node (and rewritten where it may).
const cached = spawnSync(process.execPath, [`${outdir}/main.js`], {
  env: { PATH: process.env.PATH ?? "", NODE_COMPILE_CACHE: `${outdir}/compile-cache` },
  encoding: "utf8",
});
if (!cached.stderr.includes("Invalid configuration")) {
  throw new Error(`the bundle did not load: ${cached.stderr}`);
}
// The Mini App's page, served by the bot from dist/webapp/.
await buildWebapp(`${outdir}/webapp`);
