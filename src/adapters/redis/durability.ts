import type { Redis } from "ioredis";

export type DurabilityCheck =
  | { kind: "durable" }
  | { kind: "at-risk"; problems: string[] }
  /** CONFIG is not permitted (a managed Redis): nothing could be checked. */
  | { kind: "unknown"; reason: string };

async function setting(redis: Redis, name: string): Promise<string> {
  const reply = (await redis.call("CONFIG", "GET", name)) as string[];
  return reply[1] ?? "";
}

/**
 * Whether Redis keeps the purchase records through a restart and under memory pressure: the
 * journal needs AOF (appendfsync everysec or always) and a policy that never evicts it.
 */
export async function checkDurability(redis: Redis): Promise<DurabilityCheck> {
  let settings: string[];
  try {
    settings = await Promise.all(
      ["appendonly", "appendfsync", "save", "maxmemory-policy"].map((name) => setting(redis, name)),
    );
  } catch (error) {
    return { kind: "unknown", reason: error instanceof Error ? error.message : String(error) };
  }
  const [appendonly, fsync, save = "", policy = ""] = settings;
  const problems: string[] = [];
  if (appendonly !== "yes") {
    problems.push(
      save.trim() === ""
        ? 'no persistence (appendonly no, save ""): a restart of Redis loses every purchase'
        : "appendonly no: a restart of Redis loses the purchases since the last snapshot",
    );
  } else if (fsync === "no") {
    problems.push("appendfsync no: a crash of the machine can lose recent purchases");
  }
  if (policy.startsWith("allkeys-")) {
    problems.push(`maxmemory-policy ${policy}: purchase records can be evicted`);
  }
  return problems.length === 0 ? { kind: "durable" } : { kind: "at-risk", problems };
}
