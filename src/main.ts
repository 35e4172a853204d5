import { createBot } from "./bot/bot.js";
import { ConfigError, loadConfig } from "./config/config.js";
import { createLogger } from "./logger.js";

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
const bot = createBot({ token: config.botToken, apiRoot: config.telegramApiRoot, logger });

const stop = () => void bot.stop();
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

await bot.start({
  onStart: (me) => logger.info({ username: me.username }, "bot started (long polling)"),
});
logger.info("bot stopped");
