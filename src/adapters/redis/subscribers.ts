import type { Redis } from "ioredis";
import { SERVICE_KINDS, type ServiceKind } from "../../domain/model.js";
import type { Subscriber, SubscriberStore } from "../../domain/subscribers.js";
import type { RedisKeys } from "./keys.js";

/** One Redis hash per user and a set of all their ids. */
export class RedisSubscribers implements SubscriberStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** One round trip. */
  async seen(id: number, language: string, now: number): Promise<void> {
    const key = this.keys.subscriber(id);
    await this.redis
      .multi()
      .hsetnx(key, "firstSeen", now)
      .hsetnx(key, "subscribed", "1")
      .hset(key, { language, lastSeen: now, active: "1" })
      .sadd(this.keys.subscribers, id)
      .exec();
  }

  async setSubscribed(id: number, subscribed: boolean): Promise<void> {
    await this.redis.hset(this.keys.subscriber(id), "subscribed", subscribed ? "1" : "0");
  }

  async setActive(id: number, active: boolean): Promise<void> {
    await this.redis.hset(this.keys.subscriber(id), "active", active ? "1" : "0");
  }

  async noteService(id: number, service: ServiceKind): Promise<void> {
    await this.redis.hset(this.keys.subscriber(id), `service:${service}`, "1");
  }

  async get(id: number): Promise<Subscriber | null> {
    const hash = await this.redis.hgetall(this.keys.subscriber(id));
    return hash.firstSeen === undefined ? null : toSubscriber(id, hash);
  }

  async all(): Promise<Subscriber[]> {
    const ids = (await this.redis.smembers(this.keys.subscribers))
      .map(Number)
      .sort((a, b) => a - b);
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.subscriber(id));
    const hashes = (await pipeline.exec()) ?? [];
    return ids.map((id, index) =>
      toSubscriber(id, (hashes[index]?.[1] ?? {}) as Record<string, string>),
    );
  }
}

function toSubscriber(id: number, hash: Record<string, string>): Subscriber {
  return {
    id,
    language: hash.language ?? "en",
    firstSeen: Number(hash.firstSeen ?? 0),
    lastSeen: Number(hash.lastSeen ?? 0),
    services: SERVICE_KINDS.filter((service) => hash[`service:${service}`] === "1"),
    subscribed: hash.subscribed !== "0",
    active: hash.active !== "0",
  };
}
