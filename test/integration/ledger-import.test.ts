// The upgrade from the release that kept purchases in Redis, on real Redis: it looks once,
// cheaply, before it scans, and keeps that look truthful. The whole upgrade, with the bot and
// the ledger: test/e2e/ledger-upgrade.test.ts.
import { Readable } from "node:stream";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { RedisPurchaseImport } from "../../src/adapters/ledger/import-from-redis.js";
import { captureLogs } from "../support/log-capture.js";
import { testRedis } from "../support/redis.js";

const store = testRedis("ledger-import");
const { redis, prefix } = store;
afterAll(() => store.cleanup());
afterEach(() => vi.restoreAllMocks());

const adopt = vi.fn(async () => true);
const upgrade = new RedisPurchaseImport(redis, prefix, { adopt }, captureLogs().logger);

/** A record as the previous release created it: the record and its place in `recent`. */
async function writeOldRecord(id: string): Promise<void> {
  const record = { id, buyer: 7300, checkout: null, reference: null, transaction: null };
  await redis
    .multi()
    .set(`${prefix}purchase:${id}`, JSON.stringify(record))
    .lpush(`${prefix}purchases:recent`, id)
    .exec();
}

describe("the upgrade from Redis", () => {
  it("scans nothing when the previous release left no keys", async () => {
    const scan = vi.spyOn(redis, "scanStream");
    expect(await upgrade.run()).toBe(0);
    expect(scan).not.toHaveBeenCalled();
    expect(adopt).not.toHaveBeenCalled();
  });

  it("keeps the indices while a record created after its scan is there, then takes it", async () => {
    await writeOldRecord("late");
    // The scan passed before the previous release created it.
    const scan = vi.spyOn(redis, "scanStream").mockReturnValueOnce(Readable.from([]) as never);
    expect(await upgrade.run()).toBe(0);
    expect(adopt).not.toHaveBeenCalled();
    expect(await redis.exists(`${prefix}purchases:recent`)).toBe(1);

    expect(await upgrade.run()).toBe(0);
    expect(scan).toHaveBeenCalledTimes(2);
    expect(adopt).toHaveBeenCalledWith(expect.objectContaining({ id: "late" }), []);
    expect(await redis.keys(`${prefix}purchase*`)).toEqual([]);
  });
});
