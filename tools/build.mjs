// `npm run build`: src/main.ts and everything it imports, bundled into dist/main.js.
//
// One file starts in about half the time of the ~300 modules Node would otherwise resolve,
// read and compile one by one, and idles about 15 MB smaller (bench/RESULTS.md). Types are
// checked by `npm run typecheck`. BullMQ stays a package: it is loaded only when a broadcast
// runs, and it reads its Lua scripts from its own folder. So does PGlite, the embedded ledger:
// loaded only without DATABASE_URL, it reads its WebAssembly and data files from its folder.
// The ledger's migrations are modules, bundled like the rest.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const outdir = process.argv[2] ?? "dist";

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: `${outdir}/main.js`,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["bullmq", "@electric-sql/pglite"],
  // grammY's and the runner's AbortController polyfill: the built-in classes instead (see the
  // file). Names are not kept (keepNames costs a call per closure created and ~4 MB of idle
  // RSS); the production-build test runs the bundle against Telegram, Redis and BullMQ.
  alias: { "abort-controller": "./tools/native-abort-controller.cjs" },
  sourcemap: true,
  // The CommonJS packages in the bundle call require() for Node's own modules.
  banner: {
    js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
  },
  logLevel: "warning",
});

// V8 keeps a script's source in the heap for lazy compilation, at two bytes per character if
// a single one is outside Latin-1: the emoji in the packages' doc comments (esbuild keeps
// comments and escapes only code) cost 3 MB. Escaped, the bundle is ASCII and stored at one
// byte per character; an escape means the same as its character in a string, regex or comment.
const bundle = `${outdir}/main.js`;
writeFileSync(
  bundle,
  readFileSync(bundle, "utf8").replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  ),
);
