// A payment's last check (pre_checkout_query) is answered only once the chat's earlier updates
// are applied: a Pay tapped right after /cancel, Back or a new purchase then meets the purchase
// as those left it (and is refused), not as it was (taken, and owed back). Payment updates run
// ahead of every middleware (bot.ts); the chat's other updates run behind the flood limit,
// sequentialize and the update gate. So the check waits for this process's updates of the chat
// with a lower update_id, then for the chat's turn in the gate, which another replica holds
// while it handles an update of the chat. Bounded: a slow update or a store that does not
// answer never keeps the answer past Telegram's 10 seconds; the ledger still decides.
import { setTimeout as sleep } from "node:timers/promises";

/** Whether an update of the chat is being handled anywhere (the gate's turn across replicas). */
export interface ChatTurns {
  busy(chatId: number): Promise<boolean>;
}

/** How often the chat's turn is asked for while another holds it. */
const TURN_POLL_MS = 20;

export class ChatUpdates {
  private readonly chats = new Map<number, Map<number, Promise<unknown>>>();

  /** An update of this chat entered the bot; `handled` settles once it is done with. */
  track(chatId: number | undefined, updateId: number, handled: Promise<unknown>): void {
    if (chatId === undefined) return;
    const underWay = this.chats.get(chatId) ?? new Map<number, Promise<unknown>>();
    underWay.set(updateId, handled);
    this.chats.set(chatId, underWay);
    const done = () => {
      underWay.delete(updateId);
      if (underWay.size === 0 && this.chats.get(chatId) === underWay) this.chats.delete(chatId);
    };
    handled.then(done, done);
  }

  /** Settles once this process's updates of the chat before `updateId` are done with. */
  async before(chatId: number, updateId: number): Promise<void> {
    const underWay = this.chats.get(chatId);
    if (!underWay) return;
    const earlier = [...underWay].filter(([id]) => id < updateId).map(([, handled]) => handled);
    await Promise.allSettled(earlier);
  }
}

/**
 * Waits, at most `withinMs`, for the chat's updates before `updateId` to be applied, here and
 * on other replicas. True when they were; false when it gave up at the bound. A gate that
 * fails to answer is not waited for (nothing can be known of the other replicas then).
 */
export async function earlierUpdatesApplied(
  updates: ChatUpdates,
  turns: ChatTurns,
  chatId: number,
  updateId: number,
  withinMs: number,
): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  const left = () => deadline - Date.now();
  if ((await within(updates.before(chatId, updateId), left())) === null) return false;
  for (;;) {
    const answer = await within(
      turns.busy(chatId).catch(() => false),
      left(),
    );
    if (answer === null) return false;
    if (!answer.value) return true;
    if (left() <= 0) return false;
    await sleep(Math.min(TURN_POLL_MS, left()));
  }
}

/** The promise's value, or null when it did not settle within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | null> {
  if (ms <= 0) return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
