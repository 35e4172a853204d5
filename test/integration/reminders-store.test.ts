// The reminder store on real Redis: a due reminder goes to one taker only, and a user cancels
// only their own reminders.
import { afterAll, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisReminders } from "../../src/adapters/redis/reminders.js";
import { testRedis } from "../support/redis.js";
import { aReminder } from "../support/reminders.js";

const store = testRedis("reminders-store");
afterAll(() => store.cleanup());
const reminders = new RedisReminders(store.redis, redisKeys(store.prefix));

describe("the reminder store", () => {
  it("hands a due reminder to one of two takers", async () => {
    const now = Date.now();
    await reminders.add([aReminder("due1", 8_800_000_001, now - 1)]);
    const [first, second] = await Promise.all([
      reminders.takeDue(now, 10),
      reminders.takeDue(now, 10),
    ]);
    expect([...(first ?? []), ...(second ?? [])].map((r) => r.id)).toEqual(["due1"]);
    expect(await reminders.ofUser(8_800_000_001)).toEqual([]);
  });

  it("cancels a reminder only for its own user", async () => {
    await reminders.add([aReminder("mine", 11, Date.now() + 60_000)]);
    expect(await reminders.cancel(12, "mine")).toBe(false);
    expect((await reminders.ofUser(11)).map((r) => r.id)).toEqual(["mine"]);
    expect(await reminders.cancel(11, "mine")).toBe(true);
    expect(await reminders.ofUser(11)).toEqual([]);
  });
});
