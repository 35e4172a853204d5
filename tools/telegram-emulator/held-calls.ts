// Calls a test holds back: the next call of a method (in one chat, if given) is answered only
// once the test releases it, so that a race is made deterministic (one answer held while
// another update goes through).

/** A held call: `reached` once the bot made it, answered after `release()`. */
export interface HeldCall {
  reached: Promise<void>;
  release(): void;
}

interface Hold {
  method: string;
  chatId: number | undefined;
  reach(): void;
  released: Promise<void>;
}

export class HeldCalls {
  private readonly holds: Hold[] = [];

  add(method: string, chatId: number | undefined): HeldCall {
    let reach!: () => void;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.holds.push({ method, chatId, reach, released });
    return { reached, release };
  }

  /** Waits while this call is held: the first hold that matches it, taken once. */
  async wait(method: string, chatId: number | undefined): Promise<void> {
    const index = this.holds.findIndex(
      (hold) => hold.method === method && (hold.chatId === undefined || hold.chatId === chatId),
    );
    if (index < 0) return;
    const [hold] = this.holds.splice(index, 1);
    hold?.reach();
    await hold?.released;
  }
}
