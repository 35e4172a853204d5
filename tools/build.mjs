// `npm run build`: src/main.ts and everything it imports, bundled into dist/main.js.
//
// One file starts in about half the time of the ~300 modules Node would otherwise resolve,
// read and compile one by one, and idles about 15 MB smaller (bench/RESULTS.md). Types are
// checked by `npm run typecheck`. BullMQ stays a package: it is loaded only when a broadcast
// runs, and it reads its Lua scripts from its own folder.
import { rmSync } from "node:fs";
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
  external: ["bullmq"],
  // Bundling renames a declaration that would shadow a name used elsewhere (the abort-controller
  // polyfill's AbortSignal class became AbortSignal2), and node-fetch, under grammY, checks a
  // signal by its class's name: every Telegram call then failed. Names stay as written.
  keepNames: true,
  sourcemap: true,
  // The CommonJS packages in the bundle call require() for Node's own modules.
  banner: {
    js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
  },
  logLevel: "warning",
});
