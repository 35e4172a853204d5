// The process: configuration, logger and app; exit codes and signals.
import { createLogger } from "./adapters/logger.js";
import { createApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";

function loadConfigOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\nSee docs/operations.md, "Configuration".\n`);
    process.exit(1);
  }
}

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, { secrets: config.secrets });
const app = createApp(config, logger);

// SIGTERM (docker stop, Kubernetes, systemd) or SIGINT (Ctrl-C) drains the bot. npm and tsx
// forward a signal again, and a terminal sends Ctrl-C to the whole group: a repeated signal
// must neither cut the drain short nor start a second one, hence `on` and one promise.
let stopping = false;
const stop = (signal: string) => {
  if (stopping) {
    logger.info({ signal }, "already stopping");
    return;
  }
  stopping = true;
  logger.info({ signal, graceSeconds: config.shutdownGraceMs / 1000 }, "stopping");
  const overdue = setTimeout(() => {
    logger.error({}, "shutdown took longer than SHUTDOWN_GRACE_SECONDS: exiting anyway");
    process.exit(1);
  }, config.shutdownGraceMs);
  overdue.unref();
  app.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, "shutdown failed");
      process.exit(1);
    },
  );
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));

try {
  await app.start();
} catch (error) {
  // A start cut short by a signal ends through stop(), which exits.
  if (stopping) await new Promise(() => undefined);
  logger.fatal({ err: error }, "could not start");
  process.exit(1);
}
