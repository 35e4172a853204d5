// The Redis connection the bot's stores share, made to fail fast and to say so once. A
// command never waits for a reconnection (the offline queue is off) nor for a Redis that
// stopped answering (a command timeout), so an update is answered within seconds during an
// outage. Losing Redis is logged once, coming back once: no error per reconnection attempt.
import { Redis, type RedisOptions } from "ioredis";
import type { Log } from "../../domain/ports.js";
import { Reachability } from "../reachability.js";
import { type RedisTarget, redisOptions } from "./options.js";

export interface RedisConnectionOptions {
  commandTimeoutMs: number;
  log: Log;
  /** How often an idle connection is probed, so that a Redis that stopped answering is noticed. */
  probeMs?: number;
  /** Called when Redis becomes unreachable, and for every command that failed for want of it. */
  onError?(): void;
}

/** Errors that mean "Redis cannot be reached", as opposed to a bug in a command. */
const UNREACHABLE =
  /Stream isn't writeable|Connection is closed|Command timed out|MaxRetriesPerRequest|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH/;

export class RedisConnection {
  readonly redis: Redis;
  private readonly reach: Reachability;

  constructor(
    target: RedisTarget,
    private readonly options: RedisConnectionOptions,
    extra: RedisOptions = {},
  ) {
    this.redis = new Redis(
      redisOptions(target, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: options.commandTimeoutMs,
        retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
        lazyConnect: true,
        ...extra,
      }),
    );
    this.reach = new Reachability("Redis", options.log, options.onError);
    this.redis.on("ready", () => this.reach.mark(true));
    this.redis.on("error", (error) => this.reach.mark(false, error));
    this.redis.on("close", () => this.reach.mark(false));
  }

  /** True while Redis answers. */
  get healthy(): boolean {
    return this.reach.healthy;
  }

  /**
   * Whether a failed command means that Redis could not be reached (callers then say so
   * briefly); such a failure marks Redis unreachable until it answers again.
   */
  isUnreachable(error: unknown): boolean {
    if (error instanceof Error && UNREACHABLE.test(error.message)) {
      this.options.onError?.();
      this.reach.mark(false, error);
    }
    return !this.healthy;
  }

  /** Connects, waiting for Redis however long it takes (logged once), then probes it. */
  async open(): Promise<void> {
    const ready = new Promise((resolve) => this.redis.once("ready", resolve));
    this.redis.connect().catch(() => undefined);
    await ready;
    this.reach.watch(() => this.redis.ping(), this.options.probeMs ?? 1_000);
  }

  async close(): Promise<void> {
    this.reach.stop();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
