// Admin broadcasts: the durable record of one broadcast and the paced, resumable sending of it.
// Each recipient is claimed before its message is sent, so a restart resumes where it stopped
// and nobody gets the message twice (a crash right after a claim loses that one message).
import { setTimeout as sleep } from "node:timers/promises";
import type { ServiceKind } from "./model.js";
import type { Amount } from "./money.js";
import type { Log } from "./ports.js";
import type { Audience, SubscriberStore } from "./subscribers.js";

export interface PlanGroup {
  /** A billing period, "addon" or "other". */
  filter: string;
  items: { name: string; price: Amount }[];
}

export type BroadcastContent =
  /**
   * The admin's own message, copied as it is (formatting, photo and caption included);
   * `message` is the delivery port's own reference to it.
   */
  | { kind: "copy"; message: string }
  /** Plan information, rendered in each recipient's language. */
  | { kind: "plans"; service: ServiceKind; groups: PlanGroup[] };

export interface Recipient {
  id: number;
  language: string;
}

export interface BroadcastRecord {
  id: string;
  /** The admin who sent it; the reports go to them. */
  admin: number;
  adminLanguage: string;
  /** The delivery port's reference to the progress report it keeps up to date. */
  progressReport: string;
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

/** A broadcast's record, its recipients and who has been claimed, sent or failed. */
export interface BroadcastStore {
  create(record: BroadcastRecord, recipients: Recipient[]): Promise<void>;
  get(id: string): Promise<BroadcastRecord | null>;
  recipients(id: string): Promise<Recipient[]>;
  progress(id: string): Promise<Map<number, RecipientState>>;
  /** True when this recipient was not claimed before (by this or an earlier run). */
  claim(id: string, recipientId: number): Promise<boolean>;
  mark(id: string, recipientId: number, state: Exclude<RecipientState, "claimed">): Promise<void>;
  cancel(id: string): Promise<void>;
  isCancelled(id: string): Promise<boolean>;
  finish(id: string): Promise<void>;
  /** Broadcasts not finished yet. */
  running(): Promise<string[]>;
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
    private readonly registry: SubscriberStore,
    private readonly ports: BroadcastPorts,
    private readonly options: BroadcastSenderOptions,
    private readonly log: Log,
  ) {}

  /**
   * Sends what is left of the broadcast. When `stop` is aborted (the process is shutting down)
   * it stops before the next recipient and returns "paused": whoever runs it next resumes.
   */
  async run(id: string, stop?: AbortSignal): Promise<BroadcastCounts | "paused"> {
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
      if (stop?.aborted) return "paused";
      if (await this.store.isCancelled(id)) {
        cancelled = true;
        break;
      }
      if (!(await this.store.claim(id, recipient.id))) continue;
      progress.set(recipient.id, "claimed");
      let result: DeliveryResult;
      for (;;) {
        const wait = nextSendAt - Date.now();
        if (wait > 0) await sleep(wait, undefined, { signal: stop }).catch(() => undefined);
        nextSendAt = Math.max(Date.now(), nextSendAt) + interval;
        result = await this.ports.deliver(recipient, record.content);
        if (typeof result === "string") break;
        // Flood control: everybody waits, then the same recipient is tried again.
        this.log.warn(
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
    this.log.info({ broadcastId: id, ...counts, cancelled }, "broadcast finished");
    return counts;
  }

  private async quietly(task: Promise<void>): Promise<void> {
    try {
      await task;
    } catch (error) {
      this.log.warn({ err: error }, "could not report broadcast progress");
    }
  }
}
