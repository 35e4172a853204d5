// Long polling acknowledges a batch of updates by asking for the next one (getUpdates with a
// higher offset), whether or not its updates were handled. A payment's confirmation must be
// durable before it is acknowledged: the next getUpdates waits until every confirmation fetched
// so far was kept (in the ledger or the journal). One kept nowhere is not given up on: it stays
// unacknowledged and is handled again after a growing pause until it is kept. A process killed
// or stopped meanwhile never asks for the next batch, so Telegram delivers the confirmation
// again to whoever polls next.
import type { Api } from "grammy";
import type { Update } from "grammy/types";
import type { Log } from "../../domain/ports.js";

export const isPaymentConfirmation = (update: unknown): boolean =>
  (update as Partial<Update>).message?.successful_payment !== undefined;

/** The pauses between attempts at a confirmation kept nowhere. */
export interface HoldRetry {
  firstMs: number;
  maxMs: number;
}

/** The poll's signal, as grammY hands it to a transformer. */
interface PollSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

const RETRY: HoldRetry = { firstMs: 1_000, maxMs: 5_000 };

interface Held {
  done: Promise<void>;
  release: () => void;
  attempts: number;
  timer?: NodeJS.Timeout;
}

export class ConfirmationHold {
  private readonly pending = new Map<number, Held>();
  private stopped = false;

  constructor(
    private readonly log: Log,
    private readonly retry: HoldRetry = RETRY,
  ) {}

  /** Installs the wait on this API's getUpdates; a poll stopped meanwhile asks for nothing. */
  install(api: Api): void {
    api.config.use(async (prev, method, payload, signal) => {
      if (method !== "getUpdates") return prev(method, payload, signal);
      await this.allKept(signal);
      const answer = await prev(method, payload, signal);
      if (answer.ok) this.fetched(answer.result as Update[]);
      return answer;
    });
  }

  /** Whether this update came by polling and is not acknowledged yet. */
  holds(updateId: number): boolean {
    return this.pending.has(updateId);
  }

  /** The confirmation was kept (or handled otherwise, and logged): acknowledge it. */
  handled(updateId: number): void {
    const held = this.pending.get(updateId);
    clearTimeout(held?.timer);
    held?.release();
    this.pending.delete(updateId);
  }

  /**
   * Kept nowhere: not acknowledged, and handed to `handle` again after a growing pause (none
   * once stopping: it stays with Telegram). False when the update is not one polled here.
   */
  again(update: Update, handle: (update: Update) => Promise<void>): boolean {
    const held = this.pending.get(update.update_id);
    if (!held) return false;
    if (this.stopped) return true;
    const pause = Math.min(this.retry.maxMs, this.retry.firstMs * 2 ** held.attempts);
    held.attempts += 1;
    if (held.attempts === 1) {
      this.log.warn(
        { updateId: update.update_id, retryInMs: pause },
        "payment confirmation not acknowledged: handled again until it is kept",
      );
    }
    held.timer = setTimeout(() => {
      handle(update).catch((error: unknown) => {
        // Not a confirmation kept nowhere (that schedules itself again): said, and let go.
        this.log.error({ err: error, updateId: update.update_id }, "payment confirmation failed");
        this.handled(update.update_id);
      });
    }, pause);
    held.timer.unref();
    return true;
  }

  /** Shutting down: no more attempts; whatever is held stays unacknowledged, with Telegram. */
  stop(): void {
    this.stopped = true;
    for (const held of this.pending.values()) clearTimeout(held.timer);
  }

  /** Every confirmation fetched so far kept; rejects when the poll is stopped first. */
  private async allKept(signal: PollSignal | undefined): Promise<void> {
    const kept = Promise.all([...this.pending.values()].map((entry) => entry.done));
    if (!signal) return void (await kept);
    const stopped = () => new Error("getUpdates stopped while a payment confirmation is held");
    if (signal.aborted) throw stopped();
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(stopped());
      signal.addEventListener("abort", onAbort);
      void kept.then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }

  private fetched(updates: Update[]): void {
    for (const update of updates) {
      if (!isPaymentConfirmation(update) || this.pending.has(update.update_id)) continue;
      let release!: () => void;
      const done = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.pending.set(update.update_id, { done, release, attempts: 0 });
    }
  }
}
