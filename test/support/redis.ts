import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A Redis connection and a key prefix of the test's own; `cleanup` deletes its keys. */
export function testRedis(name: string) {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 });
  const prefix = `test:${name}:${randomBytes(4).toString("hex")}:`;
  return {
    redis,
    prefix,
    async cleanup() {
      await deleteByPrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== "0");
}
