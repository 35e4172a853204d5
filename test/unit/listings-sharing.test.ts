// The listings kept in memory share what they list alike (a plan's catalogue): one copy of each
// bouquet whoever it was listed to, and each listing still reads as it was written.
import type { Redis } from "ioredis";
import RedisMock from "ioredis-mock";
import { describe, expect, it } from "vitest";
import { redisKeys } from "../../src/adapters/redis/keys.js";
import { RedisListings } from "../../src/adapters/redis/listings.js";

const catalogue = () => [
  { code: "B1", displayName: "Hindi Entertainment", price: "500.00", periods: ["monthly"] },
  { code: "B2", displayName: "Sports HD", price: "700.00", periods: ["monthly", "yearly"] },
];
const listingOf = (customer: string) => ({
  customer: { code: customer, name: `Customer ${customer}` },
  subscriptions: [{ connection: `${customer}-1`, status: "active" }],
  bouquets: catalogue(),
  masked: false,
});

describe("the listings kept in memory", () => {
  it("share one copy of each bouquet listed alike, and read back as written", async () => {
    const redis = new RedisMock() as unknown as Redis;
    const listings = new RedisListings(redis, redisKeys("sharing:"), 60);
    await listings.put("j1", listingOf("1000001"));
    await listings.put("j2", listingOf("1000002"));
    const [first, second] = (await Promise.all([listings.get("j1"), listings.get("j2")])) as [
      ReturnType<typeof listingOf>,
      ReturnType<typeof listingOf>,
    ];
    expect(first).toEqual(listingOf("1000001"));
    expect(second).toEqual(listingOf("1000002"));
    expect(second.bouquets[0]).toBe(first.bouquets[0]);
    expect(second.bouquets[1]).toBe(first.bouquets[1]);
    // What differs stays each listing's own.
    expect(second.subscriptions[0]).not.toEqual(first.subscriptions[0]);
    redis.disconnect();
  });

  // Review of #40's shared number, finding 3: /forget leaves no copy in this process either.
  it("drop a group's listings, and the objects only they listed, from memory", async () => {
    const redis = new RedisMock() as unknown as Redis;
    const listings = new RedisListings(redis, redisKeys("sharing-drop:"), 60);
    await listings.put("number", listingOf("1000003"), "number-7");
    await listings.dropGroup("number-7");
    expect(await listings.get("number")).toBeNull();
    // Listed again, the subscription is a new object: no copy of the dropped one was kept.
    const gone = listingOf("1000003");
    await listings.put("again", gone);
    const again = (await listings.get("again")) as ReturnType<typeof listingOf>;
    expect(again).toEqual(gone);
    const shared = (listings as unknown as { shared: Map<string, unknown> }).shared;
    expect([...shared.values()].filter((v) => JSON.stringify(v).includes("1000003"))).toEqual([
      again.subscriptions[0],
    ]);
    redis.disconnect();
  });
});
