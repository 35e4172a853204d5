// A bot's webhook, as Telegram runs it: every queued update is POSTed to the URL (with the
// secret header), up to max_connections at once in update order but one at a time per chat,
// as the Bot API server's own sender does. A 2xx confirms it; anything else (another status,
// no connection, no answer in time) is retried after a delay, the same update_id again, until
// the attempts run out.

import type { WebhookDelivery, WebhookTiming } from "./types.js";
import type { QueuedUpdate, UpdateQueue } from "./update-queue.js";

export const WEBHOOK_DEFAULTS: Required<WebhookTiming> = {
  timeoutMs: 10_000,
  retryDelayMs: 1_000,
  maxAttempts: 5,
};

export interface WebhookSettings {
  url: string;
  secret: string | undefined;
  maxConnections: number;
}

export interface WebhookError {
  /** Unix time, as getWebhookInfo's last_error_date. */
  date: number;
  message: string;
}

export class Webhook {
  private inFlight = 0;
  private readonly attempts = new Map<QueuedUpdate, number>();
  private readonly stopped = new AbortController();
  private readonly retries = new Set<NodeJS.Timeout>();
  private latestError: WebhookError | undefined;

  constructor(
    readonly settings: WebhookSettings,
    private readonly queue: UpdateQueue,
    private readonly timing: Required<WebhookTiming>,
    private readonly record: (delivery: WebhookDelivery) => void,
  ) {
    queue.onQueued = () => this.pump();
    this.pump();
  }

  /** The latest failed attempt; a new webhook starts without one, as on Telegram. */
  get lastError(): WebhookError | undefined {
    return this.latestError;
  }

  /** No more POSTs; those under way are aborted; what is queued stays queued. */
  stop(): void {
    this.stopped.abort();
    for (const timer of this.retries) clearTimeout(timer);
    this.queue.onQueued = undefined;
    for (const entry of this.attempts.keys()) entry.posting = false;
  }

  private pump(): void {
    while (!this.stopped.signal.aborted && this.inFlight < this.settings.maxConnections) {
      const entry = this.queue.takeForWebhook();
      if (!entry) return;
      this.inFlight++;
      void this.post(entry).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async post(entry: QueuedUpdate): Promise<void> {
    const attempt = (this.attempts.get(entry) ?? 0) + 1;
    this.attempts.set(entry, attempt);
    const { status, error } = await this.send(entry);
    if (this.stopped.signal.aborted) return;
    this.record({
      updateId: entry.update.update_id,
      attempt,
      status,
      ...(error && { error }),
      time: new Date(),
    });
    if (status !== undefined && status >= 200 && status < 300) return this.done(entry);
    this.latestError = { date: Math.floor(Date.now() / 1000), message: error ?? "" };
    if (attempt >= this.timing.maxAttempts) return this.done(entry);
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      entry.posting = false;
      this.pump();
    }, this.timing.retryDelayMs);
    this.retries.add(timer);
  }

  private done(entry: QueuedUpdate): void {
    this.attempts.delete(entry);
    this.queue.remove(entry);
  }

  private async send(entry: QueuedUpdate): Promise<{ status?: number; error?: string }> {
    const signal = AbortSignal.any([
      this.stopped.signal,
      AbortSignal.timeout(this.timing.timeoutMs),
    ]);
    try {
      const response = await fetch(this.settings.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(this.settings.secret && { "x-telegram-bot-api-secret-token": this.settings.secret }),
        },
        body: JSON.stringify(entry.update),
        signal,
      });
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return { status: response.status };
      const error = `Wrong response from the webhook: ${response.status} ${response.statusText}`;
      return { status: response.status, error };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      return { error: timedOut ? "Read timeout expired" : "Connection refused" };
    }
  }
}
