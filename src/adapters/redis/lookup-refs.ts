// Short ids for the Refresh buttons of support cards. A customer code can be longer than
// Telegram's 64 bytes of callback data allow, and should not sit in button data anyway: the
// button carries a random id, Redis maps it to the code (and the group) for a day.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { LookupRef, LookupRefStore } from "../../domain/support.js";
import type { RedisKeys } from "./keys.js";

const LOOKUP_REF_TTL_SECONDS = 86_400;

/** 12 URL-safe characters (72 random bits). */
const newLookupRefId = (): string => randomBytes(9).toString("base64url");

export class RedisLookupRefs implements LookupRefStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds = LOOKUP_REF_TTL_SECONDS,
  ) {}

  async create(ref: LookupRef): Promise<string> {
    const id = newLookupRefId();
    await this.redis.set(this.keys.lookupRef(id), JSON.stringify(ref), "EX", this.ttlSeconds);
    return id;
  }

  async resolve(id: string): Promise<LookupRef | null> {
    const raw = await this.redis.get(this.keys.lookupRef(id));
    if (raw === null) return null;
    const parsed = JSON.parse(raw) as Partial<LookupRef>;
    return typeof parsed.code === "string" && typeof parsed.group === "number"
      ? { code: parsed.code, group: parsed.group }
      : null;
  }
}
