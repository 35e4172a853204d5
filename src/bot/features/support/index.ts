// Support staff: /lookup, /txn and /recent in the group chats listed in SUPPORT_CHAT_IDS, for
// the members who are staff (shared/staff.ts; other members are refused). Anywhere else these
// commands reveal nothing: private chats are told the commands are for support staff, other
// groups get no reaction at all. Also notices the bot
// being added to or removed from groups.
import { Composer } from "grammy";
import { SUPPORT_COMMANDS } from "../../../domain/support-audit.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { requireRole } from "../../shared/staff.js";
import { refreshButtons } from "./callback-data.js";
import { createLookup } from "./lookup.js";
import { createRecent } from "./recent.js";
import { createTxn } from "./txn.js";

/** The commands staff type; "refresh" is a button. */
const TYPED_COMMANDS = SUPPORT_COMMANDS.filter((command) => command !== "refresh");

const isGroup = (type: string | undefined) => type === "group" || type === "supergroup";

export function createSupport(deps: BotDeps): Composer<BotContext> {
  const support = new Composer<BotContext>();

  // Logged for groups only (private chats' blocks are the subscriber registry's business);
  // passed on either way so that other features see it too.
  support.on("my_chat_member", async (ctx, next) => {
    const { chat, new_chat_member, old_chat_member } = ctx.myChatMember;
    if (isGroup(chat.type)) {
      deps.logger.info(
        {
          chatId: chat.id,
          status: new_chat_member.status,
          previousStatus: old_chat_member.status,
          allowListed: deps.staff.isSupportChat(chat.id),
        },
        "bot membership in a group changed",
      );
    }
    await next();
  });

  const supportChat = support.filter(
    (ctx) => isGroup(ctx.chat?.type) && deps.staff.isSupportChat(ctx.chat?.id),
  );
  for (const command of TYPED_COMMANDS) supportChat.command(command, requireRole(deps, command));
  supportChat.callbackQuery(refreshButtons.filter, requireRole(deps, "refresh"));
  supportChat.use(createLookup(deps), createTxn(deps), createRecent(deps));

  support.chatType("private").command(TYPED_COMMANDS, (ctx) => ctx.reply(ctx.t("support-only")));
  // Other groups (and channels): complete silence, and nothing for the fallback to answer.
  support.command(TYPED_COMMANDS, (ctx) => {
    deps.logger.debug({ chatId: ctx.chat?.id }, "support command outside support chats ignored");
  });
  support.callbackQuery(refreshButtons.filter, async (ctx) => {
    deps.logger.debug({ chatId: ctx.chat?.id }, "support button outside support chats ignored");
    await ctx.answerCallbackQuery();
  });
  return support;
}
