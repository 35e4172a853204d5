import { describe, expect, it } from "vitest";
import { PacedAsker } from "../../src/domain/paced-asking.js";

function clock() {
  let now = 0;
  const calls: number[] = [];
  return {
    calls,
    pacing: {
      ratePerSecond: 2,
      attempts: 3,
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
    },
    at: () => now,
  };
}

describe("asking an outside party gently", () => {
  it("paces calls at the rate, retries included", async () => {
    const c = clock();
    const asker = new PacedAsker(c.pacing);
    for (let i = 0; i < 3; i++) await asker.ask(async () => c.calls.push(c.at()));
    expect(c.calls).toEqual([0, 500, 1000]);
  });
  it("retries a failure, then says it could not ask", async () => {
    const c = clock();
    const asker = new PacedAsker(c.pacing);
    let tries = 0;
    const flaky = async () => {
      tries++;
      if (tries < 3) throw new Error("down");
      return "ok";
    };
    expect(await asker.ask(flaky)).toEqual({ asked: true, answer: "ok" });
    expect(
      await asker.ask(async () => {
        throw new Error("down");
      }),
    ).toEqual({ asked: false });
    expect(c.at()).toBe(2500);
  });
});
