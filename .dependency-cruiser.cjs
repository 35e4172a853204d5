// The architecture's boundaries, checked by `npm run lint` (see docs/architecture.md).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "No import cycles anywhere: a cycle is a module split in the wrong place.",
      from: {},
      to: { circular: true },
    },
    {
      name: "domain-is-pure",
      severity: "error",
      comment:
        "The domain (purchase, journal, reconciliation, support, broadcast, subscribers) knows no " +
        "Telegram, Redis, HTTP client or logger: it states ports and adapters implement them. " +
        "Node's own modules only.",
      from: { path: "^src/domain/" },
      to: { dependencyTypesNot: ["local", "core"] },
    },
    {
      name: "domain-imports-only-domain",
      severity: "error",
      comment:
        "The domain never imports the bot, the adapters, the configuration or the root (app.ts, " +
        "lifecycle.ts, wiring/).",
      from: { path: "^src/domain/" },
      to: { path: "^(src/(bot|adapters|wiring)/|src/[^/]+\\.ts$|tools/)" },
    },
    {
      name: "features-are-independent",
      severity: "error",
      comment: "A feature never imports another feature: what two share lives in src/bot/shared/.",
      from: { path: "^src/bot/features/([^/]+)/" },
      to: { path: "^src/bot/features/", pathNot: "^src/bot/features/$1/" },
    },
    {
      name: "shared-knows-no-feature",
      severity: "error",
      comment: "src/bot/shared/ serves the features; it never reaches into one.",
      from: { path: "^src/bot/shared/" },
      to: { path: "^src/bot/features/" },
    },
    {
      name: "bot-uses-ports-not-adapters",
      severity: "error",
      comment:
        "The Telegram layer reaches Redis, the provider and the queues only through the ports " +
        "the composition root hands it (only the logger and metrics types are shared).",
      from: { path: "^src/bot/" },
      to: { path: "^src/adapters/", pathNot: "^src/adapters/(logger|metrics)\\.ts$" },
    },
    {
      name: "adapters-know-no-bot",
      severity: "error",
      comment: "Adapters implement the domain's ports; they never import the Telegram layer.",
      from: { path: "^src/adapters/" },
      to: { path: "^src/bot/" },
    },
    {
      name: "only-the-root-wires",
      severity: "error",
      comment:
        "src/wiring/ and src/lifecycle.ts are the composition root's parts: only src/app.ts and " +
        "they themselves use them; the bot, the adapters and the tools are handed what they need.",
      from: { path: "^(src|tools)/", pathNot: "^src/(app\\.ts$|lifecycle\\.ts$|wiring/)" },
      to: { path: "^src/(wiring/|lifecycle\\.ts$)" },
    },
    {
      name: "product-never-imports-tools",
      severity: "error",
      comment: "src/ is what ships: it never imports the developer tools.",
      from: { path: "^src/" },
      to: { path: "^tools/" },
    },
    {
      name: "fakes-stand-alone",
      severity: "error",
      comment: "The sandbox and the emulator fake outside systems: they know nothing of the bot.",
      from: {
        path: "^tools/(sandbox|khalti-sandbox|esewa-sandbox|fonepay-sandbox|payment-fakes|telegram-emulator)/",
      },
      to: { path: "^src/" },
    },
    {
      name: "the-page-stands-alone",
      severity: "error",
      comment:
        "webapp/ is the Mini App's page, built for the browser: it talks to the bot over its " +
        "HTTP API only, imports nothing of the bot, and nothing of the bot imports it (the bot " +
        "serves its built files).",
      from: { path: "^webapp/" },
      to: { path: "^(src|tools|test|bench)/" },
    },
    {
      name: "nothing-imports-the-page",
      severity: "error",
      comment: "The bot serves the page's built files from disk; no module imports its source.",
      from: { path: "^(src|tools|test|bench)/" },
      to: { path: "^webapp/" },
    },
    {
      name: "product-needs-no-dev-dependency",
      severity: "error",
      comment: "Production installs omit devDependencies (npm ci --omit=dev).",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "resolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
