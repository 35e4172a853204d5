import { describe, expect, it } from "vitest";
import { redisOptions } from "../../src/adapters/redis/options.js";

const sentinelName = "mymaster";

describe("redisOptions", () => {
  it("reads host, port, database and credentials from REDIS_URL", () => {
    expect(
      redisOptions({ url: "redis://user:p%40ss@cache.internal:6380/3", sentinelName }),
    ).toEqual({
      host: "cache.internal",
      port: 6380,
      db: 3,
      username: "user",
      password: "p@ss",
    });
    expect(redisOptions({ url: "redis://[::1]", sentinelName })).toMatchObject({
      host: "::1",
      port: 6379,
      db: 0,
    });
  });

  it("turns TLS on for rediss://", () => {
    expect(
      redisOptions({ url: "rediss://:secret@redis.example:6380", sentinelName }),
    ).toMatchObject({
      host: "redis.example",
      password: "secret",
      tls: {},
    });
  });

  it("asks Sentinel for the master, REDIS_URL giving the password, database and TLS", () => {
    const sentinels = [{ host: "s1", port: 26379 }];
    const options = redisOptions(
      { url: "rediss://:secret@ignored:6379/2", sentinels, sentinelName },
      { lazyConnect: true },
    );
    expect(options).toEqual({
      sentinels,
      name: "mymaster",
      db: 2,
      password: "secret",
      tls: {},
      enableTLSForSentinelMode: true,
      lazyConnect: true,
    });
    expect(options).not.toHaveProperty("host");
  });
});
