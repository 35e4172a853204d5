import type { Redis } from "ioredis";
import type { ServiceKind } from "./model.js";
import type { RedisKeys } from "./redis-keys.js";

/** Someone who talked to the bot in private, and whether announcements may reach them. */
export interface Subscriber {
  id: number;
  language: string;
  firstSeen: number;
  lastSeen: number;
  services: ServiceKind[];
  /** Announcements wanted (/stop turns this off, /start on again). */
  subscribed: boolean;
  /** The chat works (false after the user blocked the bot). */
  active: boolean;
}

export type Audience =
  | { kind: "everyone" }
  | { kind: "language"; language: string }
  | { kind: "service"; service: ServiceKind };

const SERVICES: ServiceKind[] = ["tv", "internet", "iptv"];

/** The subscriber registry: one Redis hash per user and a set of all their ids. */
export class SubscriberRegistry {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Records a private contact: one round trip. */
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

  /** Everyone the audience covers who is subscribed and reachable, in id order. */
  async audience(audience: Audience): Promise<Subscriber[]> {
    const ids = (await this.redis.smembers(this.keys.subscribers))
      .map(Number)
      .sort((a, b) => a - b);
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.subscriber(id));
    const hashes = (await pipeline.exec()) ?? [];
    return ids
      .map((id, index) => toSubscriber(id, (hashes[index]?.[1] ?? {}) as Record<string, string>))
      .filter((subscriber) => subscriber.subscribed && subscriber.active)
      .filter((subscriber) => {
        if (audience.kind === "language") return subscriber.language === audience.language;
        if (audience.kind === "service") return subscriber.services.includes(audience.service);
        return true;
      });
  }
}

function toSubscriber(id: number, hash: Record<string, string>): Subscriber {
  return {
    id,
    language: hash.language ?? "en",
    firstSeen: Number(hash.firstSeen ?? 0),
    lastSeen: Number(hash.lastSeen ?? 0),
    services: SERVICES.filter((service) => hash[`service:${service}`] === "1"),
    subscribed: hash.subscribed !== "0",
    active: hash.active !== "0",
  };
}
