// The Mini App's page (webapp/): its script and stylesheet bundled and minified by esbuild, the
// page copied beside them. `npm run build` puts them in dist/webapp/ (the image serves them);
// `npm run build:webapp` in webapp/dist/, where the bot run from src/ (npm start, the
// playground, the tests) finds them.
import { copyFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Builds the page into `outdir`. */
export async function buildWebapp(outdir = `${root}webapp/dist`) {
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [`${root}webapp/app.ts`, `${root}webapp/app.css`],
    outdir,
    bundle: true,
    platform: "browser",
    format: "esm",
    // Telegram's in-app browsers: iOS 15's Safari and Android's WebView of the last years.
    target: ["es2020", "safari15", "chrome90"],
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  copyFileSync(`${root}webapp/index.html`, `${outdir}/index.html`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildWebapp(process.argv[2]);
