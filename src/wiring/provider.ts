// The provider: its HTTP API (either version), watched by ProviderHealth, which alerts
// operators when it is down and pauses top-ups while it refuses our token.
import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import { ProviderClient } from "../adapters/provider/client.js";
import type { Config } from "../config.js";
import { type AlertChannel, ProviderHealth } from "../domain/provider-health.js";
import type { Stores } from "./stores.js";

export interface Provider {
  client: ProviderClient;
  /** The client as the rest of the bot asks it. */
  health: ProviderHealth;
}

export function createProvider(parts: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  stores: Stores;
  alerts: AlertChannel;
}): Provider {
  const { config, logger, metrics } = parts;
  const client = new ProviderClient({ ...config.provider, logger });
  const health = new ProviderHealth(
    client,
    parts.alerts,
    parts.stores.alertLedger,
    {
      ...config.providerHealth,
      onCall: (operation, outcome, seconds) =>
        metrics.providerCalls.observe({ operation, outcome }, seconds),
      onAlert: (kind) => metrics.alerts.inc({ kind }),
    },
    logger,
  );
  return { client, health };
}
