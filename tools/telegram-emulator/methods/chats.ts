// Chat information and membership: getChat, getChatMember, leaveChat.

import type { ChatFullInfo, ChatMember } from "grammy/types";
import { badRequest } from "../api-error.js";
import { chatMember, notifyBotStatus } from "../membership.js";
import { botUser } from "../world.js";
import { assertCanPost, type MethodCall, targetChat } from "./method-call.js";

const FULL_INFO_DEFAULTS = {
  accent_color_id: 0,
  max_reaction_count: 11,
  accepted_gift_types: {
    unlimited_gifts: false,
    limited_gifts: false,
    unique_gifts: false,
    premium_subscription: false,
    gifts_from_channels: false,
  },
};

export function getChat(call: MethodCall): ChatFullInfo {
  return { ...targetChat(call).chat, ...FULL_INFO_DEFAULTS } as ChatFullInfo;
}

export function getChatMember(call: MethodCall): ChatMember {
  const { world, bot, params } = call;
  const log = targetChat(call);
  const userId = params.integer("user_id");
  if (userId === undefined) throw badRequest("invalid user_id specified");
  const user = userId === bot.id ? botUser(bot) : world.findUser(userId);
  const group = world.groups.get(log.chatId);
  if (!user || (!group && userId !== bot.id && userId !== log.chatId)) {
    throw badRequest("user not found");
  }
  if (!group) return chatMember("member", user);
  const status = userId === bot.id ? world.groupStatus(bot, group) : group.members.get(userId);
  return chatMember(status ?? "left", user);
}

export function leaveChat(call: MethodCall): true {
  const { world, bot } = call;
  const log = targetChat(call);
  const group = world.groups.get(log.chatId);
  if (!group) throw badRequest("chat member status can't be changed in private chats");
  assertCanPost(call, log);
  const oldStatus = world.groupStatus(bot, group);
  group.members.set(bot.id, "left");
  notifyBotStatus(world, bot, group.chat, botUser(bot), oldStatus, "left");
  return true;
}
