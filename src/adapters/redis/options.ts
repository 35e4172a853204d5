// Where Redis is: REDIS_URL (redis:// or rediss:// for TLS), or a Sentinel group that names the
// current master, REDIS_URL then giving its password, database and TLS. The bot's connection
// and BullMQ's are made from the same settings. Redis Cluster is not supported (the stores'
// scripts touch several keys that a cluster could place on different nodes).
import type { RedisOptions } from "ioredis";

export interface RedisTarget {
  url: string;
  sentinels?: { host: string; port: number }[] | undefined;
  sentinelName: string;
}

/** ioredis options for the target, with the caller's own options on top. */
export function redisOptions(target: RedisTarget, extra: RedisOptions = {}): RedisOptions {
  const url = new URL(target.url);
  const tls = url.protocol === "rediss:" ? { tls: {} } : {};
  const db = Number(url.pathname.slice(1) || 0);
  const auth = {
    ...(url.username && { username: decodeURIComponent(url.username) }),
    ...(url.password && { password: decodeURIComponent(url.password) }),
  };
  if (target.sentinels?.length) {
    return {
      sentinels: target.sentinels,
      name: target.sentinelName,
      db,
      ...auth,
      ...tls,
      ...(tls.tls && { enableTLSForSentinelMode: true }),
      ...extra,
    };
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 6379),
    db,
    ...auth,
    ...tls,
    ...extra,
  };
}
