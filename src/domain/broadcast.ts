// Admin broadcasts: the durable record of one broadcast and the paced, resumable sending of it.
// Each recipient is claimed before its message is sent, so a restart resumes where it stopped
// and nobody gets the message twice (a crash right after a claim loses that one message).
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { errorFields, type Logger } from "../logger.js";
import type { ServiceKind } from "./model.js";
import type { RedisKeys } from "./redis-keys.js";
import type { Audience, SubscriberRegistry } from "./subscribers.js";

export interface PlanGroup {
  /** A billing period, "addon" or "other". */
  filter: string;
  items: { name: string; price: number }[];
}

export type BroadcastContent =
  /** The admin's own message, copied as it is (formatting, photo and caption included). */
  | { kind: "copy"; fromChatId: number; messageId: number }
  /** Plan information, rendered in each recipient's language. */
  | { kind: "plans"; service: ServiceKind; groups: PlanGroup[] };

export interface Recipient {
  id: number;
  language: string;
}

export interface BroadcastRecord {
  id: string;
  adminChatId: number;
  adminLanguage: string;
  progressMessageId: number;
  content: BroadcastContent;
  audience: Audience;
  createdAt: number;
  total: number;
}

export type RecipientState = "claimed" | "sent" | "failed" | "blocked";
export type BroadcastPhase = "sending" | "done" | "cancelled";

export interface BroadcastCounts {
  total: number;
  sent: number;
  failed: number;
  blocked: number;
  remaining: number;
}

export type DeliveryResult = "sent" | "failed" | "blocked" | { retryAfterSeconds: number };

/** What sending needs from Telegram. */
export interface BroadcastPorts {
  deliver(recipient: Recipient, content: BroadcastContent): Promise<DeliveryResult>;
  report(record: BroadcastRecord, counts: BroadcastCounts, phase: BroadcastPhase): Promise<void>;
}

export class BroadcastStore {
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

  /** True when this recipient was not claimed before (by this or an earlier run). */
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

  /** Broadcasts not finished yet, for /broadcast_cancel. */
  running(): Promise<string[]> {
    return this.redis.smembers(this.keys.broadcastsRunning);
  }
}

export interface BroadcastSenderOptions {
  ratePerSecond: number;
  progressIntervalMs: number;
}

export function countProgress(
  total: number,
  progress: Map<number, RecipientState>,
): BroadcastCounts {
  const counts = { total, sent: 0, failed: 0, blocked: 0, remaining: 0 };
  for (const state of progress.values()) {
    if (state === "sent") counts.sent++;
    else if (state === "blocked") counts.blocked++;
    else counts.failed++; // "claimed" left by a crash counts as failed: we cannot know
  }
  counts.remaining = Math.max(0, total - progress.size);
  return counts;
}

/** Sends one broadcast at a paced rate; safe to run again after a crash. */
export class BroadcastSender {
  constructor(
    private readonly store: BroadcastStore,
    private readonly registry: SubscriberRegistry,
    private readonly ports: BroadcastPorts,
    private readonly options: BroadcastSenderOptions,
    private readonly logger: Logger,
  ) {}

  async run(id: string): Promise<BroadcastCounts> {
    const record = await this.store.get(id);
    if (!record) return { total: 0, sent: 0, failed: 0, blocked: 0, remaining: 0 };
    const recipients = await this.store.recipients(id);
    const progress = await this.store.progress(id);
    const interval = 1000 / this.options.ratePerSecond;
    let nextSendAt = 0;
    let lastReport = Date.now();
    let cancelled = false;

    for (const recipient of recipients) {
      if (progress.has(recipient.id)) continue;
      if (await this.store.isCancelled(id)) {
        cancelled = true;
        break;
      }
      if (!(await this.store.claim(id, recipient.id))) continue;
      progress.set(recipient.id, "claimed");
      let result: DeliveryResult;
      for (;;) {
        const wait = nextSendAt - Date.now();
        if (wait > 0) await sleep(wait);
        nextSendAt = Math.max(Date.now(), nextSendAt) + interval;
        result = await this.ports.deliver(recipient, record.content);
        if (typeof result === "string") break;
        // Flood control: everybody waits, then the same recipient is tried again.
        this.logger.warn(
          { broadcastId: id, retryAfter: result.retryAfterSeconds },
          "broadcast slowed down by Telegram",
        );
        nextSendAt = Date.now() + result.retryAfterSeconds * 1000;
      }
      await this.store.mark(id, recipient.id, result);
      progress.set(recipient.id, result);
      if (result === "blocked") await this.registry.setActive(recipient.id, false);
      if (Date.now() - lastReport >= this.options.progressIntervalMs) {
        lastReport = Date.now();
        await this.quietly(
          this.ports.report(record, countProgress(record.total, progress), "sending"),
        );
      }
    }

    const counts = countProgress(record.total, progress);
    await this.store.finish(id);
    await this.quietly(this.ports.report(record, counts, cancelled ? "cancelled" : "done"));
    this.logger.info({ broadcastId: id, ...counts, cancelled }, "broadcast finished");
    return counts;
  }

  private async quietly(task: Promise<void>): Promise<void> {
    try {
      await task;
    } catch (error) {
      this.logger.warn(errorFields(error), "could not report broadcast progress");
    }
  }
}
