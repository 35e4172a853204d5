// A tap is not kept waiting behind lookups that wait for a slow provider: in polling mode the
// runner handles POLLING_CONCURRENCY updates at once, and waiting ones hold no core.
import { afterEach, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.js";

const LOOKUPS = 8;
const SLOW_PROVIDER = { PROVIDER_TIMEOUT_MS: "5000" };

/** Eight users' lookups held 1.5 s by the provider, then one more user's /language tap. */
async function tapBehindSlowLookups(stack: Stack): Promise<number> {
  stack.sandbox.setFault("get-customer-information", { kind: "latency", ms: 1_500 });
  const waiting = Array.from({ length: LOOKUPS }, (_, i) => {
    const user = stack.emulator.user({ id: 61_000 + i, first_name: "Slow", language_code: "en" });
    const answered = user.waitForText("Choose a package", { timeoutMs: 10_000 });
    user.sendText("/topup 1000001");
    return answered;
  });
  const tapper = stack.emulator.user({ id: 62_000, first_name: "Tap", language_code: "en" });
  const menu = tapper.waitForText("Choose your language", { timeoutMs: 5_000 });
  tapper.sendText("/language");
  await menu;
  const started = Date.now();
  const switched = tapper.waitForText("Language set", { timeoutMs: 10_000 });
  tapper.press("English");
  await switched;
  const tapMs = Date.now() - started;
  await Promise.all(waiting);
  return tapMs;
}

describe("updates handled at once while polling", () => {
  let stack: Stack | undefined;
  afterEach(() => stack?.stop());

  it("answers a tap at once while lookups wait for the provider (default)", async () => {
    stack = await startStack("concurrency-default", SLOW_PROVIDER);
    expect(await tapBehindSlowLookups(stack)).toBeLessThan(700);
  });

  it("with POLLING_CONCURRENCY below the waiting lookups, the tap waits its turn", async () => {
    stack = await startStack("concurrency-low", { ...SLOW_PROVIDER, POLLING_CONCURRENCY: "4" });
    expect(await tapBehindSlowLookups(stack)).toBeGreaterThan(1_000);
  });
});
