import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { mapBounded } from "../../src/domain/bounded.js";

describe("mapBounded", () => {
  it("never runs more than `limit` tasks at once, and keeps the order of the results", async () => {
    let running = 0;
    let peak = 0;
    const delays = [30, 5, 20, 1, 15, 10, 25, 2, 8, 12];
    const results = await mapBounded(delays, 4, async (ms, index) => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(ms);
      running -= 1;
      return index * 10;
    });
    expect(peak).toBe(4);
    expect(results).toEqual(delays.map((_, index) => index * 10));
  });

  it("runs everything at once when there are fewer items than the limit", async () => {
    let running = 0;
    let peak = 0;
    await mapBounded([1, 2, 3], 4, async () => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(5);
      running -= 1;
    });
    expect(peak).toBe(3);
    expect(await mapBounded([], 4, async () => 1)).toEqual([]);
  });

  it("rejects with the first failure and starts nothing after it", async () => {
    const started: number[] = [];
    const run = mapBounded([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      // Item 1 fails while item 0 is still running: no worker may start item 2.
      await sleep(item === 1 ? 1 : 10);
      if (item === 1) throw new Error("boom");
      return item;
    });
    await expect(run).rejects.toThrow("boom");
    await sleep(20);
    expect(started).toEqual([0, 1]);
  });

  it("refuses a limit below one", async () => {
    await expect(mapBounded([1], 0, async () => 1)).rejects.toThrow(RangeError);
  });
});
