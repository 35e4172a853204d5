import type { Redis } from "ioredis";
import type {
  AuditLog,
  AuditRecord,
  Refusal,
  StaffCommand,
  StoredAuditRecord,
} from "../../domain/support-audit.js";
import type { RedisKeys } from "./keys.js";

/** Entries kept at least; Redis trims whole nodes, so slightly more may stay (`MAXLEN ~`). */
const AUDIT_MAX_LENGTH = 10_000;

/**
 * The audit trail as a Redis stream: the sender under `userId`, or under `senderChatId` when it
 * was a chat; `refused` only on refusals.
 */
export class RedisAuditLog implements AuditLog {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly maxLength = AUDIT_MAX_LENGTH,
  ) {}

  async record(record: AuditRecord): Promise<string> {
    const id = await this.redis.xadd(
      this.keys.auditLookups,
      "MAXLEN",
      "~",
      this.maxLength,
      "*",
      record.asChat ? "senderChatId" : "userId",
      String(record.sender),
      "chatId",
      String(record.group),
      "command",
      record.command,
      "code",
      record.code,
      "at",
      String(record.at),
      ...(record.refused ? ["refused", record.refused] : []),
    );
    if (id === null) throw new Error("XADD returned no id");
    return id;
  }

  async latest(count: number): Promise<StoredAuditRecord[]> {
    const entries = await this.redis.xrevrange(this.keys.auditLookups, "+", "-", "COUNT", count);
    return entries.map(([id, fields]) => {
      const value = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) {
        value.set(fields[i] as string, fields[i + 1] as string);
      }
      const senderChat = value.get("senderChatId");
      const refused = value.get("refused") as Refusal | undefined;
      return {
        id,
        sender: Number(senderChat ?? value.get("userId")),
        ...(senderChat !== undefined && { asChat: true as const }),
        group: Number(value.get("chatId")),
        command: value.get("command") as StaffCommand,
        code: value.get("code") ?? "",
        at: Number(value.get("at")),
        ...(refused && { refused }),
      };
    });
  }
}
