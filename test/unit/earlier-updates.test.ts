// A payment's check waits for the chat's earlier updates, here and on other replicas, and
// never past its bound: whatever a slow update or a store that hangs or fails does.
import { describe, expect, it } from "vitest";
import {
  type ChatTurns,
  ChatUpdates,
  earlierUpdatesApplied,
} from "../../src/bot/shared/earlier-updates.js";

/** A promise settled by the test. */
function held<T = void>() {
  let settle!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { promise, settle, fail };
}

const free: ChatTurns = { busy: async () => false };

describe("earlierUpdatesApplied", () => {
  it("waits for this process's earlier updates of the chat, not for later ones or other chats", async () => {
    const updates = new ChatUpdates();
    const earlier = held();
    const later = held();
    const elsewhere = held();
    updates.track(7, 10, earlier.promise);
    updates.track(7, 12, later.promise);
    updates.track(8, 9, elsewhere.promise);
    let applied: boolean | undefined;
    const waiting = earlierUpdatesApplied(updates, free, 7, 11, 5_000).then((value) => {
      applied = value;
    });
    await Promise.resolve();
    expect(applied).toBeUndefined();
    // A failed update is done with too.
    earlier.fail(new Error("failed"));
    await waiting;
    expect(applied).toBe(true);
  });

  it("then waits for the chat's turn held on another replica", async () => {
    let asked = 0;
    const turns: ChatTurns = { busy: async () => ++asked < 3 };
    expect(await earlierUpdatesApplied(new ChatUpdates(), turns, 7, 11, 5_000)).toBe(true);
    expect(asked).toBe(3);
  });

  it("gives up at its bound, whatever holds it", async () => {
    const slow = new ChatUpdates();
    slow.track(7, 10, held().promise);
    const hanging: ChatTurns = { busy: () => held<boolean>().promise };
    const alwaysBusy: ChatTurns = { busy: async () => true };
    for (const [updates, turns] of [
      [slow, free],
      [new ChatUpdates(), hanging],
      [new ChatUpdates(), alwaysBusy],
    ] as const) {
      const started = Date.now();
      expect(await earlierUpdatesApplied(updates, turns, 7, 11, 200)).toBe(false);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
  });

  it("does not wait for a gate that fails (Redis away)", async () => {
    const failing: ChatTurns = { busy: async () => Promise.reject(new Error("Redis away")) };
    expect(await earlierUpdatesApplied(new ChatUpdates(), failing, 7, 11, 5_000)).toBe(true);
  });
});
