// Long polling acknowledges a batch of updates by asking for the next one (getUpdates with a
// higher offset), whether or not its updates were handled. A payment's confirmation must be
// durable before it is acknowledged: the next getUpdates waits until every confirmation fetched
// so far was handled. A process killed before that leaves its batch unacknowledged, and
// Telegram delivers the confirmation again to whoever polls next.
import type { Api } from "grammy";
import type { Update } from "grammy/types";

export const isPaymentConfirmation = (update: unknown): boolean =>
  (update as Partial<Update>).message?.successful_payment !== undefined;

export class ConfirmationHold {
  private readonly pending = new Map<number, { done: Promise<void>; release: () => void }>();

  /** Installs the wait on this API's getUpdates. */
  install(api: Api): void {
    api.config.use(async (prev, method, payload, signal) => {
      if (method !== "getUpdates") return prev(method, payload, signal);
      await Promise.all([...this.pending.values()].map((entry) => entry.done));
      const answer = await prev(method, payload, signal);
      if (answer.ok) this.fetched(answer.result as Update[]);
      return answer;
    });
  }

  /** The confirmation was handled (made durable, or given up on and logged): acknowledge it. */
  handled(updateId: number): void {
    this.pending.get(updateId)?.release();
    this.pending.delete(updateId);
  }

  private fetched(updates: Update[]): void {
    for (const update of updates) {
      if (!isPaymentConfirmation(update) || this.pending.has(update.update_id)) continue;
      let release!: () => void;
      const done = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.pending.set(update.update_id, { done, release });
    }
  }
}
