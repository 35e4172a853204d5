// The Redis connection the bot's stores share, made to fail fast and to say so once. A
// command never waits for a reconnection (the offline queue is off) nor for a Redis that
// stopped answering (a command timeout), so an update is answered within seconds during an
// outage. Losing Redis is logged once, coming back once: no error per reconnection attempt.
import { Redis, type RedisOptions } from "ioredis";
import type { Log } from "../../domain/ports.js";
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
  private up: boolean | undefined;
  private closing = false;
  private probe: NodeJS.Timeout | undefined;

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
    this.redis.on("ready", () => this.mark(true));
    this.redis.on("error", (error) => this.mark(false, error));
    this.redis.on("close", () => this.mark(false));
  }

  /** True while Redis answers. */
  get healthy(): boolean {
    return this.up === true;
  }

  /**
   * Whether a failed command means that Redis could not be reached (callers then say so
   * briefly); such a failure marks Redis unreachable until it answers again.
   */
  isUnreachable(error: unknown): boolean {
    if (error instanceof Error && UNREACHABLE.test(error.message)) {
      this.options.onError?.();
      this.mark(false, error);
    }
    return !this.healthy;
  }

  /** Connects, waiting for Redis however long it takes (logged once), then probes it. */
  async open(): Promise<void> {
    const ready = new Promise((resolve) => this.redis.once("ready", resolve));
    this.redis.connect().catch(() => undefined);
    await ready;
    const every = this.options.probeMs ?? 1_000;
    this.probe = setInterval(() => void this.ping(), every);
    this.probe.unref();
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.probe);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async ping(): Promise<void> {
    try {
      await this.redis.ping();
      this.mark(true);
    } catch (error) {
      this.mark(false, error);
    }
  }

  private mark(up: boolean, error?: unknown): void {
    if (up === this.up || this.closing) return;
    this.up = up;
    if (up) {
      this.options.log.info({}, "Redis is reachable");
      return;
    }
    this.options.log.error({ reason: reasonOf(error) }, "Redis is unreachable");
    this.options.onError?.();
  }
}

/** One line, no stack: the reason is enough to act on. */
function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : "connection ended";
}
