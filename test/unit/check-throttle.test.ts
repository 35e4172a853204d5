// The payment system asked on demand ("I have paid", the pages) at most once an interval per
// offer: a check under way is joined, one done within the interval answers instead (the asker
// told to wait), and a failed one is no answer.
import { describe, expect, it } from "vitest";
import { CheckThrottle } from "../../src/domain/check-throttle.js";

function setUp(intervalMs = 5_000) {
  let clock = 1_000_000;
  const throttle = new CheckThrottle<string>(intervalMs, () => clock);
  let asked = 0;
  const release: ((answer: string) => void)[] = [];
  const ask = () => {
    asked++;
    return new Promise<string>((resolve) => release.push(resolve));
  };
  return {
    throttle,
    ask,
    asked: () => asked,
    answer: (text: string) => release.shift()?.(text),
    tick: (ms: number) => (clock += ms),
  };
}

describe("checks on demand of one offer", () => {
  it("twenty taps while one check is under way: one ask, every tap gets its answer", async () => {
    const { throttle, ask, asked, answer } = setUp();
    const taps = Array.from({ length: 20 }, () => throttle.check("khalti:pidx-1", ask));
    expect(asked()).toBe(1);
    expect(taps.every((tap) => !tap.recent)).toBe(true);
    answer("waiting");
    expect(await Promise.all(taps.map((tap) => tap.outcome))).toEqual(Array(20).fill("waiting"));
  });

  it("taps after the answer, within the interval from it: nothing asked, told it is recent", async () => {
    const { throttle, ask, asked, answer, tick } = setUp();
    const first = throttle.check("khalti:pidx-1", ask);
    // A slow check: the interval runs from its answer, not from the tap.
    tick(10_000);
    answer("pending");
    await first.outcome;
    tick(4_999);
    const again = throttle.check("khalti:pidx-1", ask);
    expect(again.recent).toBe(true);
    expect(await again.outcome).toBe("pending");
    expect(asked()).toBe(1);
    // Another offer is asked on its own.
    throttle.check("esewa:uuid-1", ask);
    expect(asked()).toBe(2);
    // Past the interval: asked again.
    tick(1);
    const later = throttle.check("khalti:pidx-1", ask);
    expect(later.recent).toBe(false);
    expect(asked()).toBe(3);
  });

  it("a check that failed is no answer: the next tap asks", async () => {
    const { throttle, asked } = setUp();
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(new Error("the ledger is away"));
    };
    await expect(throttle.check("khalti:pidx-1", failing).outcome).rejects.toThrow("away");
    await expect(throttle.check("khalti:pidx-1", failing).outcome).rejects.toThrow("away");
    expect(calls).toBe(2);
    expect(asked()).toBe(0);
  });

  it("an interval of 0 asks every time once answered", async () => {
    const { throttle, ask, asked, answer } = setUp(0);
    const first = throttle.check("k", ask);
    answer("waiting");
    await first.outcome;
    expect(throttle.check("k", ask).recent).toBe(false);
    expect(asked()).toBe(2);
  });
});
