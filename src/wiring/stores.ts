// The stores: Redis (or the playground's stand-in) for what outlives an update but is not
// money, the ledger (PostgreSQL or the embedded PGlite) for purchases and payments. Opened,
// checked and closed here; the one answer to "is this error a store being away?".

import { hostname } from "node:os";
import type { Redis } from "ioredis";
import {
  LedgerConnection,
  type LedgerTarget,
  isUnreachable as ledgerUnreachable,
} from "../adapters/ledger/connection.js";
import { RedisPurchaseImport } from "../adapters/ledger/import-from-redis.js";
import { ProviderBalanceStore } from "../adapters/ledger/provider-balance.js";
import { LedgerPurchases } from "../adapters/ledger/purchase-store.js";
import { LedgerReports } from "../adapters/ledger/reports.js";
import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import {
  RedisAlertClaims,
  RedisAlertLedger,
  RedisLowBalanceLatch,
} from "../adapters/redis/alert-ledger.js";
import { RedisBroadcasts } from "../adapters/redis/broadcasts.js";
import { RedisCancelMarks } from "../adapters/redis/cancels.js";
import { RedisConnection } from "../adapters/redis/connection.js";
import { RedisDrafts } from "../adapters/redis/drafts.js";
import { checkDurability } from "../adapters/redis/durability.js";
import { redisKeys } from "../adapters/redis/keys.js";
import { RedisListings } from "../adapters/redis/listings.js";
import { RedisLookupCounter } from "../adapters/redis/lookup-counter.js";
import { RedisLookupRefs } from "../adapters/redis/lookup-refs.js";
import { RedisReminders } from "../adapters/redis/reminders.js";
import { RedisSavedConnections } from "../adapters/redis/saved-connections.js";
import { RedisSubscribers } from "../adapters/redis/subscribers.js";
import { RedisAuditLog } from "../adapters/redis/support-audit.js";
import { RedisUpdateGate } from "../adapters/redis/update-gate.js";
import type { Config } from "../config.js";

const SESSION_TTL_SECONDS = 90 * 86_400;
/** A chat's turn lapses this long after its instance died; an update waits at most a minute. */
const CHAT_LOCK_MS = 10_000;
const CHAT_WAIT_MS = 60_000;

export type Stores = ReturnType<typeof createStores>;

export function createStores(parts: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Stand-ins for the configured ones (the offline playground). */
  given: { redis?: Redis | undefined; ledger?: LedgerTarget | undefined };
}) {
  const { config, logger, metrics, given } = parts;
  const connection = given.redis
    ? undefined
    : new RedisConnection(config.redis, {
        commandTimeoutMs: config.redis.commandTimeoutMs,
        log: logger,
        onError: () => metrics.redisErrors.inc(),
      });
  const redis = given.redis ?? (connection as RedisConnection).redis;
  const keys = redisKeys(config.redis.keyPrefix);
  const ledger = new LedgerConnection(given.ledger ?? config.ledger, { log: logger });
  const purchases = new LedgerPurchases(ledger, `${hostname()}:${process.pid}`);
  const redisImport = new RedisPurchaseImport(redis, config.redis.keyPrefix, purchases, logger);
  const idleSeconds = Math.ceil(config.sessionIdleMs / 1000);

  /** Warns (or refuses to start) when Redis could lose or evict reminders and sessions. */
  async function checkRedis(): Promise<void> {
    const check = await checkDurability(redis);
    if (check.kind === "durable") return;
    if (check.kind === "unknown") {
      logger.warn({ reason: check.reason }, "could not check Redis durability (CONFIG refused)");
      return;
    }
    if (config.redis.requireDurable) {
      throw new Error(`Redis is not durable: ${check.problems.join("; ")}`);
    }
    logger.warn(
      { problems: check.problems },
      "Redis could lose reminders and sessions: use AOF (appendfsync everysec) and maxmemory-policy noeviction",
    );
  }

  let importRetry: NodeJS.Timeout | undefined;
  /** The previous release's purchases, out of Redis; those still leased there are tried again. */
  async function importFromRedis(): Promise<void> {
    const left = await redisImport.run().catch((error: unknown) => {
      logger.warn({ reason: String(error) }, "could not take purchases over from Redis yet");
      return 1;
    });
    if (left === 0) return;
    importRetry = setTimeout(() => void importFromRedis(), config.topup.reconcileIntervalMs);
    importRetry.unref();
  }

  return {
    redis,
    keys,
    /** Redis is the playground's stand-in, in this process. */
    inProcess: connection === undefined,
    ledger,
    purchases,
    reports: new LedgerReports(ledger, config.provider.timeZone),
    providerBalance: new ProviderBalanceStore(ledger, config.payment?.minorDigits ?? 2),
    subscribers: new RedisSubscribers(redis, keys),
    savedConnections: new RedisSavedConnections(redis, keys),
    reminders: new RedisReminders(redis, keys),
    broadcasts: new RedisBroadcasts(redis, keys),
    alertLedger: new RedisAlertLedger(redis, keys),
    alertClaims: new RedisAlertClaims(redis, keys),
    lowBalance: new RedisLowBalanceLatch(redis, keys, "balance-low"),
    balanceStop: new RedisLowBalanceLatch(redis, keys, "balance-stop"),
    gate: new RedisUpdateGate(redis, keys, {
      lockMs: CHAT_LOCK_MS,
      sessionSeconds: SESSION_TTL_SECONDS,
      waitMs: CHAT_WAIT_MS,
    }),
    drafts: new RedisDrafts(redis, keys, idleSeconds),
    listings: new RedisListings(redis, keys, idleSeconds),
    cancels: new RedisCancelMarks(redis, keys, idleSeconds),
    audit: new RedisAuditLog(redis, keys),
    lookupRefs: new RedisLookupRefs(redis, keys),
    lookupCounter: new RedisLookupCounter(redis, keys),

    /** True when an error is a store (Redis or the ledger) being unreachable. */
    isUnreachable: (error: unknown): boolean =>
      ledgerUnreachable(error) || (connection?.isUnreachable(error) ?? false),
    redisHealthy: (): boolean => connection?.healthy ?? true,
    /** Both answer. */
    healthy: (): boolean => (connection?.healthy ?? true) && ledger.healthy,

    /** Redis (then its durability checked) and the ledger, side by side. */
    async open(): Promise<void> {
      await Promise.all([connection?.open().then(checkRedis), ledger.open()]);
    },
    importFromRedis,
    async close(): Promise<void> {
      clearTimeout(importRetry);
      await (connection ? connection.close() : redis.quit());
      await ledger.close();
    },
  };
}
