// The reminder store on real Redis: a due reminder goes to one taker only, a user cancels only
// their own reminders, has one per subscription and offset, and no more than the cap.
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
    await reminders.add([aReminder("due1", 8_800_000_001, now - 1)], 10);
    const [first, second] = await Promise.all([
      reminders.takeDue(now, 10),
      reminders.takeDue(now, 10),
    ]);
    expect([...(first ?? []), ...(second ?? [])].map((r) => r.id)).toEqual(["due1"]);
    expect(await reminders.ofUser(8_800_000_001)).toEqual([]);
  });

  it("cancels a reminder only for its own user", async () => {
    await reminders.add([aReminder("mine", 11, Date.now() + 60_000)], 10);
    expect(await reminders.cancel(12, "mine")).toBe(false);
    expect((await reminders.ofUser(11)).map((r) => r.id)).toEqual(["mine"]);
    expect(await reminders.cancel(11, "mine")).toBe(true);
    expect(await reminders.ofUser(11)).toEqual([]);
  });

  it("keeps one reminder per connection, bouquet and offset: a new one takes its place", async () => {
    const user = 8_800_000_021;
    const later = Date.now() + 86_400_000;
    expect(await reminders.add([aReminder("first", user, later)], 10)).toBe(true);
    expect(await reminders.add([aReminder("again", user, later)], 10)).toBe(true);
    expect((await reminders.ofUser(user)).map((r) => r.id)).toEqual(["again"]);
    expect(await reminders.takeDue(later, 10)).toEqual([
      expect.objectContaining({ id: "again", user }),
    ]);
    // Another offset, or another bouquet, is another reminder.
    const threeDays = { ...aReminder("three", user, later), daysBefore: 3 };
    const silver = { ...aReminder("silver", user, later), bouquet: { code: "TV-S", name: "S" } };
    await reminders.add([aReminder("one", user, later + 1), threeDays, silver], 10);
    expect((await reminders.ofUser(user)).map((r) => r.id).sort()).toEqual([
      "one",
      "silver",
      "three",
    ]);
    await reminders.cancelAll(user);
  });

  it("adds none beyond the user's cap, counting only reminders still to come", async () => {
    const user = 8_800_000_022;
    const later = Date.now() + 86_400_000;
    const of = (id: string, code: string) => ({
      ...aReminder(id, user, later),
      bouquet: { code, name: code },
    });
    expect(await reminders.add([of("a", "A"), of("b", "B")], 3)).toBe(true);
    // Two more would make four: neither is added.
    expect(await reminders.add([of("c", "C"), of("d", "D")], 3)).toBe(false);
    expect((await reminders.ofUser(user)).map((r) => r.id).sort()).toEqual(["a", "b"]);
    // One in place of its own is no more.
    expect(await reminders.add([of("a2", "A"), of("c", "C")], 3)).toBe(true);
    expect(await reminders.add([of("d", "D")], 3)).toBe(false);
    expect(await reminders.cancel(user, "b")).toBe(true);
    expect(await reminders.add([of("d", "D")], 3)).toBe(true);
    expect((await reminders.ofUser(user)).map((r) => r.id).sort()).toEqual(["a2", "c", "d"]);
  });
});
