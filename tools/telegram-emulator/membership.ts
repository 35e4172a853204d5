// Who is in which chat: ChatMember objects, and the my_chat_member updates a bot gets when
// a user blocks or unblocks it, or it joins or leaves a group.

import type { Chat, ChatMember, User } from "grammy/types";
import { type BotState, botUser, type GroupStatus, type World } from "./world.js";

export function chatMember(status: GroupStatus, user: User): ChatMember {
  switch (status) {
    case "creator":
      return { status, user, is_anonymous: false };
    case "administrator":
      return {
        status,
        user,
        can_be_edited: false,
        is_anonymous: false,
        can_manage_chat: true,
        can_delete_messages: true,
        can_manage_video_chats: true,
        can_restrict_members: true,
        can_promote_members: false,
        can_change_info: true,
        can_invite_users: true,
        can_post_stories: false,
        can_edit_stories: false,
        can_delete_stories: false,
        can_pin_messages: true,
        can_send_welcome_messages: false,
      };
    case "member":
      return { status, user };
    case "left":
      return { status, user };
    case "kicked":
      return { status, user, until_date: 0 };
  }
}

/** Tells the bot about its new status in a chat with a my_chat_member update. */
export function notifyBotStatus(
  world: World,
  bot: BotState,
  chat: Chat,
  from: User,
  oldStatus: GroupStatus,
  newStatus: GroupStatus,
): void {
  const me = botUser(bot);
  world.enqueue(bot, {
    my_chat_member: {
      chat,
      from,
      date: world.now(),
      old_chat_member: chatMember(oldStatus, me),
      new_chat_member: chatMember(newStatus, me),
    },
  });
}

/** A user blocking (or unblocking) the bot in their private chat. */
export function setBlocked(world: World, bot: BotState, userId: number, blocked: boolean): void {
  const log = world.chatLog(bot, userId);
  const user = world.findUser(userId);
  if (!log || !user)
    throw new Error(`Unknown user ${userId}: create it with emulator.user() first`);
  if (bot.blockedBy.has(userId) === blocked) return;
  if (blocked) bot.blockedBy.add(userId);
  else bot.blockedBy.delete(userId);
  notifyBotStatus(
    world,
    bot,
    log.chat,
    user,
    blocked ? "member" : "kicked",
    blocked ? "kicked" : "member",
  );
}

/** A group member adding the bot to the group or removing it. */
export function setBotInGroup(
  world: World,
  bot: BotState,
  chatId: number,
  by: User,
  present: boolean,
): void {
  const group = world.groups.get(chatId);
  if (!group) throw new Error(`Unknown group ${chatId}`);
  const oldStatus = world.groupStatus(bot, group);
  const newStatus = present ? "member" : "kicked";
  if ((oldStatus === "member" || oldStatus === "administrator") === present) return;
  group.members.set(bot.id, newStatus);
  notifyBotStatus(world, bot, group.chat, by, oldStatus, newStatus);
}
