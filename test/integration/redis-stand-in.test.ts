// Every Redis store the bot has, its scripts and commands, on the in-process stand-in the
// offline playground runs (ioredis-mock) and on real Redis, with the same assertions: the
// playground runs the code production runs, and a script one of them cannot run (a Lua
// library the stand-in lacks, such as cjson) or runs differently fails here.
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import RedisMock from "ioredis-mock";
import { afterAll, describe, expect, it } from "vitest";
import { RedisPurchaseImport } from "../../src/adapters/ledger/import-from-redis.js";
import {
  RedisAlertClaims,
  RedisAlertLedger,
  RedisLowBalanceLatch,
} from "../../src/adapters/redis/alert-ledger.js";
import { RedisBroadcasts } from "../../src/adapters/redis/broadcasts.js";
import { RedisCancelMarks } from "../../src/adapters/redis/cancels.js";
import { RedisDailyReportMarks } from "../../src/adapters/redis/daily-reports.js";
import { RedisDrafts } from "../../src/adapters/redis/drafts.js";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisListings } from "../../src/adapters/redis/listings.js";
import { RedisLookupCounter } from "../../src/adapters/redis/lookup-counter.js";
import { RedisLookupRefs } from "../../src/adapters/redis/lookup-refs.js";
import { RedisPollingTurn } from "../../src/adapters/redis/polling-turn.js";
import { RedisReminders } from "../../src/adapters/redis/reminders.js";
import { RedisSavedConnections } from "../../src/adapters/redis/saved-connections.js";
import { RedisSubscribers } from "../../src/adapters/redis/subscribers.js";
import { RedisAuditLog } from "../../src/adapters/redis/support-audit.js";
import { RedisUpdateGate } from "../../src/adapters/redis/update-gate.js";
import type { BroadcastRecord } from "../../src/domain/broadcast.js";
import { testRedis } from "../support/redis.js";
import { aReminder } from "../support/reminders.js";
import { until } from "../support/wait.js";

/** The modules of src/adapters/redis/ that are not stores, and why they are not run here. */
const NOT_STORES: Record<string, string> = {
  "keys.ts": "key names",
  "options.ts": "connection options",
  "lease.ts": "the RELEASE script, run by the update gate and the polling turn below",
  "connection.ts": "the connection to a real Redis (REDIS_URL); the stand-in is given instead",
  "durability.ts": "CONFIG GET, only asked of a real Redis (the stand-in keeps nothing)",
};
/** Every store module, and the adapter outside src/adapters/redis/ that uses Redis. */
const RUN_HERE = [
  "alert-ledger.ts",
  "broadcasts.ts",
  "cancels.ts",
  "daily-reports.ts",
  "drafts.ts",
  "listings.ts",
  "lookup-counter.ts",
  "lookup-refs.ts",
  "polling-turn.ts",
  "reminders.ts",
  "saved-connections.ts",
  "subscribers.ts",
  "support-audit.ts",
  "update-gate.ts",
];

it("runs every store of src/adapters/redis/ (a new one is added here)", () => {
  const modules = readdirSync("src/adapters/redis").filter((file) => file.endsWith(".ts"));
  expect(modules.filter((file) => !(file in NOT_STORES)).sort()).toEqual(RUN_HERE);
});

const real = testRedis("stand-in");
const standIn = new RedisMock();
afterAll(async () => {
  await real.cleanup();
  standIn.disconnect();
});

const backends: [string, Redis, string][] = [
  ["the playground's stand-in (ioredis-mock)", standIn as unknown as Redis, "playground:"],
  ["Redis", real.redis, real.prefix],
];

describe.each(backends)("on %s", (_name, redis, prefix) => {
  const keys = redisKeys(prefix);

  it("update gate: enters once, reads and writes the session, keeps the chat's turn, lets a duplicate out", async () => {
    const gate = new RedisUpdateGate(redis, keys, { lockMs: 300, sessionSeconds: 60, waitMs: 50 });
    const first = await gate.enter(10, 700, false);
    if (first.kind !== "entered") throw new Error("not entered");
    expect(first.session).toBeNull();
    expect(await gate.busy(700)).toBe(true);
    expect((await gate.enter(10, 700, false)).kind).toBe("duplicate");
    // The chat's turn is held: another update waits for it, then goes through without it.
    const other = await gate.enter(11, 700, false);
    if (other.kind !== "entered") throw new Error("not entered");
    expect(await gate.leave(first.ticket, '{"step":1}')).toBe(true);
    expect(await gate.leave(other.ticket, undefined)).toBe(true);
    expect(await gate.busy(700)).toBe(false);
    expect(await redis.get(keys.update(10))).toBe("done");
    const next = await gate.enter(12, 700, true);
    if (next.kind !== "entered") throw new Error("not entered");
    expect(next.session).toBe('{"step":1}');
    // "-" deletes the session.
    expect(await gate.leave(next.ticket, null)).toBe(true);
    expect(await redis.exists(keys.session("700"))).toBe(0);
  });

  it("update gate: renews the turn while the update runs, lets it lapse once its holder is gone", async () => {
    const gate = new RedisUpdateGate(redis, keys, { lockMs: 150, sessionSeconds: 60, waitMs: 0 });
    const entry = await gate.enter(20, 701, false);
    if (entry.kind !== "entered") throw new Error("not entered");
    // Renewed every 50 ms: still held well past 150 ms.
    await until(async () => (await redis.pttl(keys.chatLock("701"))) > 120, 1_000);
    const before = Date.now();
    await until(() => Date.now() - before > 300, 1_000);
    expect(await gate.busy(701)).toBe(true);
    clearInterval((entry.ticket as unknown as { renewal: NodeJS.Timeout }).renewal);
    await until(async () => !(await gate.busy(701)), 2_000);
    // The lock lapsed: leaving writes nothing, and says so.
    expect(await gate.leave(entry.ticket, '{"late":true}')).toBe(false);
    expect(await redis.exists(keys.session("701"))).toBe(0);
  });

  it("lookup counter: counts per user and against the budget, marks a window started over it slow", async () => {
    const counter = new RedisLookupCounter(redis, keys);
    const budget = { limit: 2, windowMs: 60_000 };
    const one = await counter.add(31, 1, 60_000, budget);
    expect(one).toMatchObject({ count: 1, slow: false, spent: 1 });
    expect(one.resetAt).toBeGreaterThan(Date.now() + 59_000);
    expect(await counter.add(31, 2, 60_000, budget)).toMatchObject({ count: 3, spent: 2 });
    // The budget is spent: a user starting a window now is slow for all of it.
    expect(await counter.add(32, 1, 60_000, budget)).toMatchObject({
      count: 1,
      slow: true,
      spent: 3,
    });
    expect(await counter.add(33, 1, 60_000, undefined)).toMatchObject({ slow: false, spent: 0 });
    // Peeked, nothing is counted (the shop's kept customer is read only while not limited).
    expect(await counter.peek(32)).toMatchObject({ count: 1, slow: true });
    expect(await counter.peek(32)).toMatchObject({ count: 1 });
    expect((await counter.peek(31)).resetAt).toBeGreaterThan(Date.now() + 59_000);
    expect(await counter.peek(34)).toMatchObject({ count: 0, slow: false });
  });

  it("polling turn: one holder, renewed, given back; the bot's own previous process taken over", async () => {
    const key = keys.pollingTurn;
    const elsewhere = JSON.stringify({ host: "elsewhere", boot: "b", pid: 1, id: "x" });
    await redis.set(key, elsewhere, "PX", 10_000);
    const one = new RedisPollingTurn(redis, key, 10_000);
    expect(await one.take()).toBe(false);
    expect(await one.keep()).toBe(false);
    await redis.del(key);
    expect(await one.take()).toBe(true);
    expect(await one.keep()).toBe(true);
    expect(await redis.pttl(key)).toBeGreaterThan(9_000);
    await one.give();
    expect(await redis.exists(key)).toBe(0);
    // The store came back empty: keeping takes it again.
    expect(await one.keep()).toBe(true);
    await one.give();
    // A lease of this machine's previous process (same boot, this process id, another id).
    const boot = (await readFile("/proc/sys/kernel/random/boot_id", "utf8")).trim();
    const previous = JSON.stringify({ host: hostname(), boot, pid: process.pid, id: "old" });
    await redis.set(key, previous, "PX", 10_000);
    const restarted = new RedisPollingTurn(redis, key, 10_000);
    expect(await restarted.take()).toBe(true);
    expect(await redis.get(key)).not.toBe(previous);
    await restarted.give();
  });

  it("alert ledger: an alert claimed once per outage, all cleared when it ends; latches and claims", async () => {
    const alerts = new RedisAlertLedger(redis, keys);
    expect(await alerts.claim("down", 60_000)).toBe(true);
    expect(await alerts.claim("down", 60_000)).toBe(false);
    expect(await alerts.claim("token-refused", 60_000)).toBe(true);
    expect(await redis.get(keys.alertOutage)).toBe("token-refused");
    expect(await alerts.endOutage()).toBe(true);
    expect(await alerts.endOutage()).toBe(false);
    expect(await alerts.claim("down", 60_000)).toBe(true);
    expect(await alerts.endOutage()).toBe(true);

    const low = new RedisLowBalanceLatch(redis, keys, "balance-low");
    expect(await low.fall()).toBe(true);
    expect(await low.fall()).toBe(false);
    await low.rise();
    expect(await low.fall()).toBe(true);
    const claims = new RedisAlertClaims(redis, keys);
    expect(await claims.claim("kept-nowhere:telegram:c1", 60_000)).toBe(true);
    expect(await claims.claim("kept-nowhere:telegram:c1", 60_000)).toBe(false);
  });

  it("reminders: added in place of their slot, capped, listed, cancelled, taken once when due, kept once sent", async () => {
    const reminders = new RedisReminders(redis, keys);
    const user = 8_800_000_101;
    const later = Date.now() + 86_400_000;
    expect(await reminders.add([aReminder("r1", user, later)], 3)).toBe(true);
    // The same subscription and offset: in its place.
    expect(await reminders.add([aReminder("r2", user, later + 1)], 3)).toBe(true);
    const other = (id: string, code: string) => ({
      ...aReminder(id, user, later + 2),
      bouquet: { code, name: code },
    });
    expect(await reminders.add([other("r3", "B"), other("r4", "C")], 3)).toBe(true);
    expect(await reminders.add([other("r5", "D")], 3)).toBe(false);
    expect((await reminders.ofUser(user)).map((r) => r.id)).toEqual(["r2", "r3", "r4"]);
    expect(await reminders.cancel(user + 1, "r3")).toBe(false);
    expect(await reminders.cancel(user, "r3")).toBe(true);
    expect(await reminders.nextDue()).toBe(later + 1);

    const now = Date.now();
    await reminders.add([aReminder("due", user + 1, now - 1)], 3);
    const [first, second] = await Promise.all([
      reminders.takeDue(now, 10),
      reminders.takeDue(now, 10),
    ]);
    expect([...first, ...second].map((r) => r.id)).toEqual(["due"]);
    expect(await reminders.ofUser(user + 1)).toEqual([]);
    expect(await redis.zcard(keys.remindersOfUser(user + 1))).toBe(0);
    expect(await redis.exists(keys.reminderFields("due"))).toBe(0);

    const sentBefore = await reminders.sentCount();
    await reminders.keepSent(aReminder("due", user + 1, now - 1));
    expect((await reminders.sent("due"))?.id).toBe("due");
    expect(await reminders.sentCount()).toBe(sentBefore + 1);

    await reminders.cancelAll(user);
    expect(await reminders.ofUser(user)).toEqual([]);
    expect(await reminders.takeDue(later + 10, 10)).toEqual([]);
  });

  it("reminders: one written before their fields existed is still taken once, and its user can add again", async () => {
    const reminders = new RedisReminders(redis, keys);
    const user = 8_800_000_102;
    const now = Date.now();
    const old = aReminder("old", user, now - 1);
    await redis
      .multi()
      .set(keys.reminder("old"), JSON.stringify(old))
      .zadd(keys.remindersDue, old.fireAt, "old")
      .zadd(keys.remindersOfUser(user), old.fireAt, "old")
      .exec();
    expect((await reminders.takeDue(now, 10)).map((r) => r.id)).toEqual(["old"]);
    expect(await reminders.add([aReminder("new", user, now + 60_000)], 1)).toBe(true);
    expect((await reminders.ofUser(user)).map((r) => r.id)).toEqual(["new"]);
    await reminders.cancelAll(user);
  });

  it("broadcasts: created with recipients, each claimed once, marked, cancelled, finished", async () => {
    const broadcasts = new RedisBroadcasts(redis, keys);
    const record = { id: "b1", admin: 1, adminLanguage: "en", total: 2 } as BroadcastRecord;
    await broadcasts.create(record, [
      { id: 41, language: "en" },
      { id: 42, language: "ne" },
    ]);
    expect(await broadcasts.get("b1")).toEqual(record);
    expect(await broadcasts.get("none")).toBeNull();
    expect(await broadcasts.recipients("b1")).toEqual([
      { id: 41, language: "en" },
      { id: 42, language: "ne" },
    ]);
    expect(await broadcasts.running()).toEqual(["b1"]);
    expect(await broadcasts.claim("b1", 41)).toBe(true);
    expect(await broadcasts.claim("b1", 41)).toBe(false);
    await broadcasts.mark("b1", 41, "sent");
    expect(await broadcasts.progress("b1")).toEqual(new Map([[41, "sent"]]));
    expect(await broadcasts.isCancelled("b1")).toBe(false);
    await broadcasts.cancel("b1");
    expect(await broadcasts.isCancelled("b1")).toBe(true);
    await broadcasts.finish("b1");
    expect(await broadcasts.running()).toEqual([]);
    // None to send to: the record alone.
    await broadcasts.create({ ...record, id: "b2", total: 0 }, []);
    expect(await broadcasts.recipients("b2")).toEqual([]);
    await broadcasts.finish("b2");
  });

  it("saved connections and the shared phone number: remembered first, at most five, forgotten together", async () => {
    const saved = new RedisSavedConnections(redis, keys);
    const connection = (id: string) => ({
      customerName: "Asha S.",
      service: "tv" as const,
      connectionId: id,
    });
    expect(await saved.list(51)).toEqual([]);
    for (const id of ["1", "2", "3", "4", "5", "6", "2"]) await saved.remember(51, connection(id));
    expect((await saved.list(51)).map((c) => c.connectionId)).toEqual(["2", "6", "5", "4", "3"]);
    expect(await redis.ttl(keys.savedConnections(51))).toBeGreaterThan(364 * 86_400);
    expect(await saved.sharedPhone(51)).toBeNull();
    await saved.keepSharedPhone(51, "9851000002");
    expect(await saved.sharedPhone(51)).toBe("9851000002");
    expect(await saved.sharedPhone(52)).toBeNull();
    expect(await redis.ttl(keys.sharedPhone(51))).toBeGreaterThan(364 * 86_400);
    await saved.forget(51);
    expect(await saved.list(51)).toEqual([]);
    expect(await saved.sharedPhone(51)).toBeNull();
  });

  it("subscribers: seen, their settings and services, listed", async () => {
    const subscribers = new RedisSubscribers(redis, keys);
    expect(await subscribers.get(61)).toBeNull();
    await subscribers.seen(61, "ne", 1_000);
    await subscribers.seen(61, "en", 2_000);
    await subscribers.seen(60, "en", 3_000);
    await subscribers.setSubscribed(61, false);
    await subscribers.setActive(60, false);
    await subscribers.noteService(61, "internet");
    expect(await subscribers.get(61)).toEqual({
      id: 61,
      language: "en",
      firstSeen: 1_000,
      lastSeen: 2_000,
      services: ["internet"],
      subscribed: false,
      active: true,
    });
    const all = await subscribers.all();
    expect(all.map((s) => [s.id, s.active])).toEqual([
      [60, false],
      [61, true],
    ]);
  });

  it("support: the audit trail, newest first, and the Refresh buttons' short ids", async () => {
    const audit = new RedisAuditLog(redis, keys, 100);
    await audit.record({ sender: 71, group: -5, command: "lookup", code: "1000002", at: 1 });
    await audit.record({
      sender: -5,
      asChat: true,
      group: -5,
      command: "recent",
      code: "",
      at: 2,
      refused: "anonymous",
    });
    const [newest, oldest] = await audit.latest(2);
    expect(newest).toMatchObject({ sender: -5, asChat: true, command: "recent", at: 2 });
    expect(newest?.refused).toBe("anonymous");
    expect(oldest).toMatchObject({ sender: 71, group: -5, command: "lookup", code: "1000002" });
    expect(oldest?.asChat).toBeUndefined();

    const refs = new RedisLookupRefs(redis, keys);
    const id = await refs.create({ code: "1000002", group: -5 });
    expect(id).toMatch(/^[\w-]{12}$/);
    expect(await refs.resolve(id)).toEqual({ code: "1000002", group: -5 });
    expect(await refs.resolve("nothing-here")).toBeNull();
  });

  it("cancels, drafts, listings and the daily reports' marks", async () => {
    const cancels = new RedisCancelMarks(redis, keys, 60);
    await cancels.busy(81, 1_000);
    expect(cancels.waitsHere(81)).toBe(true);
    expect(await cancels.mark(81, 2_000)).toBe(true);
    expect(cancels.waitsHere(81)).toBe(false);
    expect(await cancels.since(81, 2_000)).toBe(true);
    expect(await cancels.since(81, 2_001)).toBe(false);
    await cancels.busy(82, 1_000);
    await cancels.idle(82);
    expect(await cancels.mark(82, 3_000)).toBe(false);

    const drafts = new RedisDrafts(redis, keys, 60);
    await drafts.put(81, "j1", { screen: "menu" });
    expect(await drafts.take(81, "j1")).toEqual({ screen: "menu" });
    expect(await drafts.take(81, "j1")).toBeNull();

    await new RedisListings(redis, keys, 60).put("j1", { bouquets: [1, 2] });
    // Another replica (nothing in its memory) reads it from the store.
    expect(await new RedisListings(redis, keys, 60).get("j1")).toEqual({ bouquets: [1, 2] });
    expect(await new RedisListings(redis, keys, 60).get("j2")).toBeNull();
    // A group (a shared number's listings) is dropped together, here and in this memory.
    const listings = new RedisListings(redis, keys, 60);
    await listings.put("g1", { connections: [{ id: "8000000021" }] }, "number-7");
    await listings.put("g2", { bouquets: [3] }, "number-7");
    await listings.put("g3", { bouquets: [4] }, "number-8");
    expect(await redis.ttl(keys.listingGroup("number-7"))).toBeGreaterThan(50);
    await listings.dropGroup("number-7");
    expect(await listings.get("g1")).toBeNull();
    expect(await listings.get("g2")).toBeNull();
    expect(await listings.get("g3")).toEqual({ bouquets: [4] });
    expect(await redis.exists(keys.listingGroup("number-7"))).toBe(0);
    await listings.dropGroup("number-9");

    const marks = new RedisDailyReportMarks(redis, keys);
    expect(await marks.claim("2026-01-02", 1, 60_000)).toBe("claimed");
    expect(await marks.claim("2026-01-02", 1, 60_000)).toBe("taken");
    await marks.markSent("2026-01-02", 1);
    expect(await marks.claim("2026-01-02", 1, 60_000)).toBe("sent");
  });

  it("the upgrade from Redis: the previous release's purchases taken into the ledger, its indices dropped", async () => {
    const adopted: string[] = [];
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const upgrade = new RedisPurchaseImport(
      redis,
      prefix,
      {
        adopt: async (purchase) => {
          adopted.push(purchase.id);
          return true;
        },
      },
      quiet,
    );
    expect(await upgrade.run()).toBe(0);
    const record = { id: "p1", buyer: 7300, checkout: { id: "c1" }, reference: null };
    await redis
      .multi()
      .set(`${prefix}purchase:p1`, JSON.stringify(record))
      .set(`${prefix}purchase-checkout:c1`, "p1")
      .lpush(`${prefix}purchases:recent`, "p1")
      .zadd(`${prefix}purchases:open`, 1, "p1")
      .exec();
    expect(await upgrade.run()).toBe(0);
    expect(adopted).toEqual(["p1"]);
    const left = await redis.exists(
      `${prefix}purchase:p1`,
      `${prefix}purchase-checkout:c1`,
      `${prefix}purchases:recent`,
      `${prefix}purchases:open`,
    );
    expect(left).toBe(0);
  });
});
