// Who may use the staff commands, and the audit of what they did. A support command needs a
// support group (SUPPORT_CHAT_IDS) and a person who is staff there: the admins, and
// STAFF_USER_IDS or, without that list, the group's own administrators (asked from Telegram,
// kept for STAFF_ROLE_CACHE_SECONDS): never every member. Marking a refund done needs
// REFUND_USER_IDS or an admin (who are staff too). A message sent as an anonymous admin or as a channel names no
// person to audit: refused, with a request to send it as oneself.
import type { MiddlewareFn } from "grammy";
import type { Config } from "../../config.js";
import type { Log } from "../../domain/ports.js";
import type { AuditLog, StaffCommand } from "../../domain/support-audit.js";
import type { BotContext } from "../context.js";

/** The stand-in senders: GroupAnonymousBot (anonymous admins) and Channel_Bot (channels). */
const STAND_IN_SENDERS = new Set([1087968824, 136817688]);
/** Cached answers kept at most; beyond it the cache starts again (a flood of strangers). */
const CACHE_MAX = 10_000;

export type Need = "staff" | "refunds";
type Verdict = "allowed" | "anonymous" | "refused";

interface StaffOptions {
  roles: Config["roles"];
  adminUserIds: number[];
  supportChatIds: number[];
  now(): number;
}

/** A message sent under a stand-in: an anonymous admin or a channel. */
const sentAsStandIn = (ctx: BotContext) =>
  ctx.msg?.sender_chat !== undefined || STAND_IN_SENDERS.has(ctx.from?.id ?? 0);

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
    if (userId === undefined) return "refused";
    if (need === "refunds") return this.isRefunder(userId) ? "allowed" : "refused";
    if (this.isListedStaff(userId)) return "allowed";
    if (this.options.roles.staffUserIds !== undefined) return "refused";
    const chatId = ctx.chat?.id;
    if (chatId === undefined || !this.isSupportChat(chatId)) return "refused";
    return (await this.isGroupAdmin(ctx, chatId, userId)) ? "allowed" : "refused";
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

/**
 * Lets a command (or a support card's button) through only for a person with the role;
 * everyone else is told why, in their language, and logged (ids only).
 */
export function requireRole(roles: StaffRoles, need: Need, log: Log): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const verdict = await roles.verdict(ctx, need);
    if (verdict === "allowed") return next();
    log.info(
      { userId: ctx.from?.id, chatId: ctx.chat?.id, need, verdict },
      "staff command refused",
    );
    const text = ctx.t(
      verdict === "anonymous"
        ? "staff-send-as-yourself"
        : need === "refunds"
          ? "staff-refunds-only"
          : "staff-only",
    );
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

/**
 * Records a staff action before it happens: in the audit trail with what it was about, in
 * the log without it (user id, chat id and command only). Throws when the audit cannot be
 * written, so that nothing is done unaudited.
 */
export async function audited(
  deps: { audit: AuditLog; logger: Log; now(): number },
  ctx: BotContext,
  command: StaffCommand,
  code: string,
): Promise<void> {
  const staff = ctx.from?.id ?? 0;
  const chat = ctx.chat?.id ?? 0;
  await deps.audit.record({ staff, group: chat, command, code, at: deps.now() });
  deps.logger.info({ userId: staff, chatId: chat, command }, "staff action");
}
