import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { WriteBehind } from "../../src/domain/write-behind.js";

describe("WriteBehind", () => {
  it("writes again every retryMs while anything waits, one pass at a time, until stopped", async () => {
    let waiting = 3;
    let passes = 0;
    let concurrent = 0;
    const behind = new WriteBehind({
      write: async () => {
        passes++;
        concurrent++;
        expect(concurrent).toBe(1);
        await sleep(2);
        concurrent--;
        waiting--;
      },
      waiting: () => waiting > 0,
      retryMs: 5,
    });
    // A pass asked for while one is under way joins it.
    await Promise.all([behind.flush(), behind.flush()]);
    expect(passes).toBe(1);
    behind.schedule();
    behind.schedule();
    await sleep(200);
    expect(passes).toBe(3);
    waiting = 1;
    behind.stop();
    behind.schedule();
    await sleep(50);
    expect(passes).toBe(3);
  });

  it("tells a failed pass to onFailure and tries again", async () => {
    const failures: unknown[] = [];
    let tries = 0;
    const behind = new WriteBehind({
      write: async () => {
        tries++;
        if (tries === 1) throw new Error("store away");
      },
      waiting: () => tries < 2,
      retryMs: 5,
      onFailure: (error) => failures.push(error),
    });
    await behind.writeNow();
    await sleep(100);
    expect(failures).toEqual([new Error("store away")]);
    expect(tries).toBe(2);
  });
});
