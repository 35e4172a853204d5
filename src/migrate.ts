// `npm run migrate` (`node dist/migrate.js` in the image): applies the ledger's migrations and
// exits. The bot applies them at start as well; this is for a deploy that migrates first.
import { LedgerConnection } from "./adapters/ledger/connection.js";
import { createLogger } from "./adapters/logger.js";
import { ConfigError, loadLedgerConfig } from "./config.js";

try {
  const config = loadLedgerConfig();
  const log = createLogger(config.logLevel, { secrets: config.secrets });
  const ledger = new LedgerConnection(config.ledger, { log });
  await ledger.open();
  await ledger.close();
  process.exit(0);
} catch (error) {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : "";
  process.stderr.write(`could not migrate the ledger: ${message}\n`);
  process.exit(1);
}
