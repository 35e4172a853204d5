// Short ids for the Refresh buttons of support cards. A customer code can be longer than
// Telegram's 64 bytes of callback data allow, and should not sit in button data anyway: the
// button carries a random id, Redis maps it to the code (and the chat) for a day.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { RedisKeys } from "./redis-keys.js";

export const LOOKUP_REF_TTL_SECONDS = 86_400;

export interface LookupRef {
  code: string;
  /** The chat whose card it is: a Refresh elsewhere is refused. */
  chatId: number;
}

/** 12 URL-safe characters (72 random bits). */
export const newLookupRefId = (): string => randomBytes(9).toString("base64url");

export class LookupRefs {
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

  /** null once expired, or for an id that was never issued. */
  async resolve(id: string): Promise<LookupRef | null> {
    const raw = await this.redis.get(this.keys.lookupRef(id));
    if (raw === null) return null;
    const parsed = JSON.parse(raw) as Partial<LookupRef>;
    return typeof parsed.code === "string" && typeof parsed.chatId === "number"
      ? { code: parsed.code, chatId: parsed.chatId }
      : null;
  }
}
