// One bot's pending updates and the long-polling getUpdates waiting for them. Updates stay
// queued until a later getUpdates confirms them with a higher offset, as on Telegram; with a
// webhook set, until the webhook answered their POST (webhook-delivery.ts takes them).

import type { Update } from "grammy/types";
import { ApiError } from "./api-error.js";
import type { UpdateInput } from "./types.js";

/** What Telegram leaves out while allowed_updates is empty or was never set. */
const EXCLUDED_BY_DEFAULT = new Set(["chat_member", "message_reaction", "message_reaction_count"]);

const MAX_LIMIT = 100;

export interface QueuedUpdate {
  update: Update;
  /** Injected updates are delivered at least once even when their id is below the offset. */
  injected: boolean;
  delivered: boolean;
  /** Being posted to the webhook (or waiting to be posted again). */
  posting?: boolean;
}

interface WaitingPoll {
  deliver(): void;
  fail(error: ApiError): void;
}

export interface PollRequest {
  offset: number | undefined;
  limit: number | undefined;
  timeoutSeconds: number;
  allowedUpdates: string[] | undefined;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export class UpdateQueue {
  private readonly queued: QueuedUpdate[] = [];
  private nextId = 1;
  private allowed: ReadonlySet<string> | undefined;
  private waiting: WaitingPoll | undefined;
  private flushScheduled = false;
  /** Told when updates were queued (the webhook delivery). */
  onQueued: (() => void) | undefined;

  /** Queues a new update; undefined when allowed_updates filters it out. */
  push(content: Omit<Update, "update_id">): Update | undefined {
    if (!this.accepts(content)) return undefined;
    const update: Update = { update_id: this.nextId++, ...content };
    this.append(update, false);
    return update;
  }

  /** Queues an update as given, keeping its update_id (duplicates included). */
  inject(input: UpdateInput): Update | undefined {
    if (!this.accepts(input)) return undefined;
    const update: Update = { ...input, update_id: input.update_id ?? this.nextId };
    this.nextId = Math.max(this.nextId, update.update_id + 1);
    this.append(update, true);
    return update;
  }

  async poll(request: PollRequest): Promise<Update[]> {
    this.confirm(request.offset);
    if (request.allowedUpdates) this.allow(request.allowedUpdates);
    this.waiting?.fail(
      new ApiError(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      ),
    );
    const limit = Math.min(Math.max(request.limit ?? MAX_LIMIT, 1), MAX_LIMIT);
    if (this.queued.length > 0 || request.timeoutSeconds <= 0 || request.signal.aborted) {
      return this.take(limit);
    }
    return new Promise<Update[]>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onAbort);
        if (this.waiting === poll) this.waiting = undefined;
      };
      const poll: WaitingPoll = {
        deliver: () => {
          settle();
          resolve(this.take(limit));
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      };
      const onAbort = (): void => {
        settle();
        resolve([]);
      };
      const timer = setTimeout(poll.deliver, request.timeoutSeconds * 1000);
      request.signal.addEventListener("abort", onAbort);
      this.waiting = poll;
    });
  }

  /** allowed_updates of getUpdates or setWebhook; an empty list means the default set. */
  allow(types: string[]): void {
    this.allowed = types.length > 0 ? new Set(types) : undefined;
  }

  /** The allowed_updates in force; undefined for the default set. */
  get allowedTypes(): string[] | undefined {
    return this.allowed && [...this.allowed];
  }

  /** deleteWebhook's and setWebhook's drop_pending_updates. */
  dropPending(): void {
    this.queued.length = 0;
  }

  get pendingCount(): number {
    return this.queued.length;
  }

  /**
   * The oldest update that may be posted now, now being posted. As Telegram's own webhook
   * sender does, a chat's updates go one at a time: the next waits for the previous answer.
   */
  takeForWebhook(): QueuedUpdate | undefined {
    const busy = new Set(this.queued.filter((q) => q.posting).map((q) => queueKeyOf(q.update)));
    const entry = this.queued.find(
      (candidate) => !candidate.posting && !busy.has(queueKeyOf(candidate.update)),
    );
    if (entry) entry.posting = true;
    return entry;
  }

  /** A webhook answered 2xx (or gave up on): gone from the queue. */
  remove(entry: QueuedUpdate): void {
    const index = this.queued.indexOf(entry);
    if (index >= 0) this.queued.splice(index, 1);
  }

  /** Ends a waiting getUpdates with an error (setWebhook's 409), so it takes no update. */
  endPoll(error: ApiError): void {
    this.waiting?.fail(error);
  }

  /** Answers a waiting getUpdates at once (with whatever is queued). */
  release(): void {
    this.waiting?.deliver();
  }

  private accepts(content: Partial<Update>): boolean {
    const type = Object.keys(content).find(
      (key) => key !== "update_id" && content[key as keyof Update] !== undefined,
    );
    if (type === undefined) return false;
    return this.allowed ? this.allowed.has(type) : !EXCLUDED_BY_DEFAULT.has(type);
  }

  private append(update: Update, injected: boolean): void {
    this.queued.push({ update, injected, delivered: false });
    // Deferred so that updates queued in the same tick reach the bot in one batch.
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (this.queued.length > 0) this.waiting?.deliver();
      this.onQueued?.();
    });
  }

  private confirm(offset: number | undefined): void {
    if (offset === undefined || offset === 0) return;
    if (offset < 0) {
      // A negative offset keeps only the last -offset updates.
      this.queued.splice(0, Math.max(0, this.queued.length + offset));
      return;
    }
    const kept = this.queued.filter(
      (entry) => entry.update.update_id >= offset || (entry.injected && !entry.delivered),
    );
    this.queued.splice(0, this.queued.length, ...kept);
  }

  private take(limit: number): Update[] {
    const batch = this.queued.slice(0, limit);
    for (const entry of batch) entry.delivered = true;
    return batch.map((entry) => entry.update);
  }
}

/** Which of Telegram's per-chat delivery queues an update belongs to. */
function queueKeyOf(update: Update): number {
  const chat =
    update.message?.chat ??
    update.edited_message?.chat ??
    update.channel_post?.chat ??
    update.callback_query?.message?.chat ??
    update.my_chat_member?.chat ??
    update.chat_member?.chat;
  return chat?.id ?? update.callback_query?.from.id ?? update.update_id;
}
