// The audit trail of support lookups: a Redis stream of who looked up what, where and when.
// It holds the looked-up codes (personal data), so it is bounded; the logs never hold them.
import type { Redis } from "ioredis";
import type { RedisKeys } from "./redis-keys.js";

export const SUPPORT_COMMANDS = ["lookup", "refresh", "txn", "recent"] as const;
export type SupportCommand = (typeof SUPPORT_COMMANDS)[number];

export interface AuditRecord {
  /** The Telegram user who asked. */
  userId: number;
  /** The chat they asked in. */
  chatId: number;
  command: SupportCommand;
  /** What was looked up as given (after normalisation); empty for a plain /recent. */
  code: string;
  /** When (ms since the epoch). */
  at: number;
}

export interface StoredAuditRecord extends AuditRecord {
  /** The stream entry id. */
  id: string;
}

/** Entries kept at least; Redis trims whole nodes, so slightly more may stay (`MAXLEN ~`). */
export const AUDIT_MAX_LENGTH = 10_000;

export class SupportAudit {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly maxLength = AUDIT_MAX_LENGTH,
  ) {}

  /** Appends one record; returns its stream id. */
  async record(record: AuditRecord): Promise<string> {
    const id = await this.redis.xadd(
      this.keys.auditLookups,
      "MAXLEN",
      "~",
      this.maxLength,
      "*",
      "userId",
      String(record.userId),
      "chatId",
      String(record.chatId),
      "command",
      record.command,
      "code",
      record.code,
      "at",
      String(record.at),
    );
    if (id === null) throw new Error("XADD returned no id");
    return id;
  }

  /** The newest `count` records, newest first. */
  async latest(count: number): Promise<StoredAuditRecord[]> {
    const entries = await this.redis.xrevrange(this.keys.auditLookups, "+", "-", "COUNT", count);
    return entries.map(([id, fields]) => {
      const value = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) {
        value.set(fields[i] as string, fields[i + 1] as string);
      }
      return {
        id,
        userId: Number(value.get("userId")),
        chatId: Number(value.get("chatId")),
        command: value.get("command") as SupportCommand,
        code: value.get("code") ?? "",
        at: Number(value.get("at")),
      };
    });
  }
}
