import type { Redis } from "ioredis";
import type {
  BroadcastRecord,
  BroadcastStore,
  Recipient,
  RecipientState,
} from "../../domain/broadcast.js";
import type { RedisKeys } from "./keys.js";

/** A hash per broadcast (record, cancel flag), a list of recipients, a hash of their states. */
export class RedisBroadcasts implements BroadcastStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(record: BroadcastRecord, recipients: Recipient[]): Promise<void> {
    const transaction = this.redis
      .multi()
      .hset(this.keys.broadcast(record.id), "record", JSON.stringify(record))
      .sadd(this.keys.broadcastsRunning, record.id);
    if (recipients.length > 0) {
      transaction.rpush(
        this.keys.broadcastRecipients(record.id),
        ...recipients.map((r) => `${r.id}:${r.language}`),
      );
    }
    await transaction.exec();
  }

  async get(id: string): Promise<BroadcastRecord | null> {
    const raw = await this.redis.hget(this.keys.broadcast(id), "record");
    return raw === null ? null : (JSON.parse(raw) as BroadcastRecord);
  }

  async recipients(id: string): Promise<Recipient[]> {
    const list = await this.redis.lrange(this.keys.broadcastRecipients(id), 0, -1);
    return list.map((item) => {
      const [recipientId, language] = item.split(":");
      return { id: Number(recipientId), language: language ?? "en" };
    });
  }

  async progress(id: string): Promise<Map<number, RecipientState>> {
    const hash = await this.redis.hgetall(this.keys.broadcastProgress(id));
    return new Map(
      Object.entries(hash).map(([key, state]) => [Number(key), state as RecipientState]),
    );
  }

  async claim(id: string, recipientId: number): Promise<boolean> {
    const field = String(recipientId);
    return (await this.redis.hsetnx(this.keys.broadcastProgress(id), field, "claimed")) === 1;
  }

  async mark(id: string, recipientId: number, state: Exclude<RecipientState, "claimed">) {
    await this.redis.hset(this.keys.broadcastProgress(id), recipientId, state);
  }

  async cancel(id: string): Promise<void> {
    await this.redis.hset(this.keys.broadcast(id), "cancelled", "1");
  }

  async isCancelled(id: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.broadcast(id), "cancelled")) === "1";
  }

  async finish(id: string): Promise<void> {
    await this.redis.srem(this.keys.broadcastsRunning, id);
  }

  running(): Promise<string[]> {
    return this.redis.smembers(this.keys.broadcastsRunning);
  }
}
