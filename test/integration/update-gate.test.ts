// The update gate on real Redis: an update id is marked in progress on the way in, lapsing with
// the chat's lock (a process that died mid-update lets the redelivery through), and done for a
// day only on the way out.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisUpdateGate } from "../../src/adapters/redis/update-gate.js";
import { testRedis } from "../support/redis.js";

const store = testRedis("update-gate");
const keys = redisKeys(store.prefix);
const LOCK_MS = 300;
const gate = new RedisUpdateGate(store.redis, keys, {
  lockMs: LOCK_MS,
  sessionSeconds: 60,
  waitMs: 5_000,
});

afterAll(() => store.cleanup());

describe("RedisUpdateGate", () => {
  it("drops a duplicate while the update runs, and after it was handled", async () => {
    const entry = await gate.enter(1, 501, false);
    if (entry.kind !== "entered") throw new Error("not entered");
    // Longer than the lock: the mark is renewed while the update runs.
    await sleep(LOCK_MS * 2);
    expect((await gate.enter(1, 502, false)).kind).toBe("duplicate");
    expect(await gate.leave(entry.ticket, undefined)).toBe(true);
    expect(await store.redis.get(keys.update(1))).toBe("done");
    expect(await store.redis.ttl(keys.update(1))).toBeGreaterThan(86_000);
    expect((await gate.enter(1, 501, false)).kind).toBe("duplicate");
  });

  it("says whether an update of the chat holds its turn, on any instance", async () => {
    expect(await gate.busy(504)).toBe(false);
    const entry = await gate.enter(3, 504, false);
    if (entry.kind !== "entered") throw new Error("not entered");
    expect(await gate.busy(504)).toBe(true);
    expect(await gate.busy(505)).toBe(false);
    await gate.leave(entry.ticket, undefined);
    expect(await gate.busy(504)).toBe(false);
  });

  it("lets an update through again once the process that took it died under way", async () => {
    // Another process (its gate gone with it) entered update 2 and never left.
    const dead = new RedisUpdateGate(store.redis, keys, {
      lockMs: LOCK_MS,
      sessionSeconds: 60,
      waitMs: 5_000,
    });
    const taken = await dead.enter(2, 503, false);
    if (taken.kind !== "entered") throw new Error("not entered");
    clearInterval((taken.ticket as { renewal: NodeJS.Timeout }).renewal);
    expect(await store.redis.pttl(keys.update(2))).toBeLessThanOrEqual(LOCK_MS);
    expect((await gate.enter(2, 503, false)).kind).toBe("duplicate");
    await sleep(LOCK_MS + 100);
    const again = await gate.enter(2, 503, false);
    expect(again.kind).toBe("entered");
    if (again.kind === "entered") await gate.leave(again.ticket, undefined);
  });
});
