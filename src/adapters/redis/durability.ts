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
 * Whether Redis keeps what it holds through a restart and under memory pressure (no money:
 * that is the ledger's; but the users' reminders, saved connections, sessions and broadcasts in
 * progress): AOF (appendfsync everysec or always) and a policy that never evicts.
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
        ? 'no persistence (appendonly no, save ""): a restart of Redis loses every reminder and session'
        : "appendonly no: a restart of Redis loses what changed since the last snapshot",
    );
  } else if (fsync === "no") {
    problems.push("appendfsync no: a crash of the machine can lose recent changes");
  }
  if (policy.startsWith("allkeys-")) {
    problems.push(`maxmemory-policy ${policy}: reminders and sessions can be evicted`);
  }
  return problems.length === 0 ? { kind: "durable" } : { kind: "at-risk", problems };
}
