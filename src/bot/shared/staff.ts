// Who may use the staff commands, and the audit of what they did. A support command needs a
// support group (SUPPORT_CHAT_IDS) and a person who is staff there: the admins, and
// STAFF_USER_IDS or, without that list, the group's own administrators (asked from Telegram,
// kept for STAFF_ROLE_CACHE_SECONDS): never every member. Marking a refund done needs
// REFUND_USER_IDS or an admin (who are staff too). A message sent as an anonymous admin or as a
// channel names no person to audit: refused, with a request to send it as oneself. A staff
// command is taken only from the staff member's own message: forwarded, or written by an
// inline bot, it is someone else's words and never run. Every staff command is audited, the
// refused ones too.
import type { MiddlewareFn } from "grammy";
import type { Config } from "../../config.js";
import type { Log } from "../../domain/ports.js";
import {
  type AuditLog,
  type AuditRecord,
  type Refusal,
  type StaffCommand,
  SUPPORT_COMMANDS,
} from "../../domain/support-audit.js";
import type { BotContext } from "../context.js";

/** The stand-in senders: GroupAnonymousBot (anonymous admins) and Channel_Bot (channels). */
const STAND_IN_SENDERS = new Set([1087968824, 136817688]);
/** Cached answers kept at most; beyond it the cache starts again (a flood of strangers). */
const CACHE_MAX = 10_000;

type Need = "staff" | "refunds";
type Verdict = "allowed" | Refusal;

/** What an admin's private chat with the bot offers besides the subscriber's commands. */
export const ADMIN_COMMANDS = [
  "report",
  "broadcast",
  "plans",
  "broadcast_cancel",
  "reminder_stats",
  "balance",
  "reconcile",
  "resolve",
] as const;

/** The commands staff type: the support group's, the refunds', the admins'. */
const AUDITED_COMMANDS: readonly StaffCommand[] = [
  ...SUPPORT_COMMANDS.filter((command) => command !== "refresh"),
  "refunds",
  "refunded",
];
const STAFF_COMMANDS: readonly string[] = [...AUDITED_COMMANDS, ...ADMIN_COMMANDS];

interface StaffOptions {
  roles: Config["roles"];
  adminUserIds: number[];
  supportChatIds: number[];
  now(): number;
}

/** A message sent under a stand-in: an anonymous admin or a channel. */
const sentAsStandIn = (ctx: BotContext) =>
  ctx.msg?.sender_chat !== undefined || STAND_IN_SENDERS.has(ctx.from?.id ?? 0);

/** Not the sender's own words: forwarded from anyone, or an inline bot's result. */
const notOwnMessage = (ctx: BotContext) =>
  ctx.msg?.forward_origin !== undefined || ctx.msg?.via_bot !== undefined;

export class StaffRoles {
  private readonly groupAdmins = new Map<string, { admin: boolean; until: number }>();
  private readonly supportChats: Set<number>;

  constructor(private readonly options: StaffOptions) {
    this.supportChats = new Set(options.supportChatIds);
  }

  isSupportChat(chatId: number | undefined): boolean {
    return this.supportChats.has(chatId ?? 0);
  }

  isAdmin(userId: number): boolean {
    return this.options.adminUserIds.includes(userId);
  }

  /** May mark refunds done (and so is staff too). */
  isRefunder(userId: number): boolean {
    return this.isAdmin(userId) || this.options.roles.refundUserIds.includes(userId);
  }

  /** Staff by the lists alone (the lookup limit spares them); group administrators need a chat. */
  isListedStaff(userId: number): boolean {
    return this.isRefunder(userId) || (this.options.roles.staffUserIds ?? []).includes(userId);
  }

  async verdict(ctx: BotContext, need: Need): Promise<Verdict> {
    if (sentAsStandIn(ctx)) return "anonymous";
    const userId = ctx.from?.id;
    if (need === "refunds") {
      return userId !== undefined && this.isRefunder(userId) ? "allowed" : "not-refunder";
    }
    if (userId === undefined) return "not-staff";
    if (this.isListedStaff(userId)) return "allowed";
    if (this.options.roles.staffUserIds !== undefined) return "not-staff";
    const chatId = ctx.chat?.id;
    if (chatId === undefined || !this.isSupportChat(chatId)) return "not-staff";
    return (await this.isGroupAdmin(ctx, chatId, userId)) ? "allowed" : "not-staff";
  }

  private async isGroupAdmin(ctx: BotContext, chatId: number, userId: number): Promise<boolean> {
    const key = `${chatId}:${userId}`;
    const now = this.options.now();
    const cached = this.groupAdmins.get(key);
    if (cached && cached.until > now) return cached.admin;
    const member = await ctx.api.getChatMember(chatId, userId);
    const admin = member.status === "creator" || member.status === "administrator";
    if (this.groupAdmins.size >= CACHE_MAX) this.groupAdmins.clear();
    this.groupAdmins.set(key, { admin, until: now + this.options.roles.groupAdminsCacheMs });
    return admin;
  }
}

interface AuditDeps {
  audit: AuditLog;
  logger: Log;
  now(): number;
}

const REFUSAL_TEXTS: Record<Refusal, string> = {
  "not-staff": "staff-only",
  "not-refunder": "staff-refunds-only",
  anonymous: "staff-send-as-yourself",
  "not-own-message": "staff-own-messages-only",
};

/**
 * Before every feature: a staff command (a support, refunds or admin command) in a message that
 * is not its sender's own (forwarded, or written by an inline bot) is never run, whoever sent
 * it. It is audited (ids and the reason) when its kind is audited, logged with ids only, and
 * answered in the sender's language where the command could be run; elsewhere (a group that is
 * not a support group) nothing is said, as for any staff command there.
 */
export function ownStaffCommands(
  deps: AuditDeps & { staff: StaffRoles },
): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    if (!notOwnMessage(ctx)) return next();
    const command = STAFF_COMMANDS.find((candidate) => ctx.hasCommand(candidate));
    if (command === undefined) return next();
    const refused: Refusal = "not-own-message";
    const audited = AUDITED_COMMANDS.find((candidate) => candidate === command);
    if (audited) await deps.audit.record({ ...auditEntry(deps, ctx, audited, ""), refused });
    deps.logger.info(
      {
        userId: ctx.from?.id,
        chatId: ctx.chat?.id,
        command,
        refused,
        forwarded: ctx.msg?.forward_origin !== undefined,
        viaBot: ctx.msg?.via_bot !== undefined,
      },
      "staff command refused",
    );
    if (ctx.chat?.type !== "private" && !deps.staff.isSupportChat(ctx.chat?.id)) return;
    const messageId = ctx.msg?.message_id;
    await ctx.reply(ctx.t(REFUSAL_TEXTS[refused]), {
      ...(messageId !== undefined && {
        reply_parameters: { message_id: messageId, allow_sending_without_reply: true },
      }),
    });
  };
}

/**
 * Lets a command (or a support card's button) through only for a person with its role:
 * marking a refund done needs a refunder, the rest staff. Everyone else is audited (ids and
 * the reason, never what they typed), logged (ids only) and told why, in their language.
 * Throws when the audit cannot be written, as `audited` does.
 */
export function requireRole(
  deps: AuditDeps & { staff: StaffRoles },
  command: StaffCommand,
): MiddlewareFn<BotContext> {
  const need: Need = command === "refunded" ? "refunds" : "staff";
  return async (ctx, next) => {
    const verdict = await deps.staff.verdict(ctx, need);
    if (verdict === "allowed") return next();
    await deps.audit.record({ ...auditEntry(deps, ctx, command, ""), refused: verdict });
    deps.logger.info(
      { userId: ctx.from?.id, chatId: ctx.chat?.id, command, refused: verdict },
      "staff command refused",
    );
    const text = ctx.t(REFUSAL_TEXTS[verdict]);
    if (ctx.callbackQuery) {
      await ctx.answerCallbackQuery({ text, show_alert: true });
      return;
    }
    const messageId = ctx.msg?.message_id;
    await ctx.reply(text, {
      ...(messageId !== undefined && {
        reply_parameters: { message_id: messageId, allow_sending_without_reply: true },
      }),
    });
  };
}

/** Who sent it, where and when: a person by user id, a stand-in by the chat it sent as. */
function auditEntry(
  deps: AuditDeps,
  ctx: BotContext,
  command: StaffCommand,
  code: string,
): AuditRecord {
  const sender = sentAsStandIn(ctx)
    ? { sender: ctx.msg?.sender_chat?.id ?? ctx.chat?.id ?? 0, asChat: true as const }
    : { sender: ctx.from?.id ?? 0 };
  return { ...sender, group: ctx.chat?.id ?? 0, command, code, at: deps.now() };
}

/**
 * Records a staff action before it happens: in the audit trail with what it was about, in
 * the log without it (user id, chat id and command only). Throws when the audit cannot be
 * written, so that nothing is done unaudited.
 */
export async function audited(
  deps: AuditDeps,
  ctx: BotContext,
  command: StaffCommand,
  code: string,
): Promise<void> {
  const entry = auditEntry(deps, ctx, command, code);
  await deps.audit.record(entry);
  deps.logger.info({ userId: entry.sender, chatId: entry.group, command }, "staff action");
}
