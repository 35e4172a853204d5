// The process: configuration, logger and app; exit codes and signals.
import { createLogger } from "./adapters/logger.js";
import { createApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";

function loadConfigOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\nSee README.md, "Configuration".\n`);
    process.exit(1);
  }
}

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const app = createApp(config, logger);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "stopping");
  await app.stop();
  process.exit(0);
};
process.once("SIGINT", () => void stop("SIGINT"));
process.once("SIGTERM", () => void stop("SIGTERM"));

try {
  await app.start();
} catch (error) {
  logger.fatal({ err: error }, "could not start");
  process.exit(1);
}
