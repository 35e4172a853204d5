// What a method handler gets, and the checks most of them share: which chat, may the bot
// post there, and flood control.

import { badRequest, forbidden } from "../api-error.js";
import type { ChatLog } from "../chat-log.js";
import type { Params } from "../params.js";
import type { BotState, World } from "../world.js";

export interface MethodCall {
  world: World;
  bot: BotState;
  params: Params;
  /** Aborted when the client goes away (ends a long poll early). */
  signal: AbortSignal;
}

/** The handler's result becomes `{ ok: true, result }`; an ApiError becomes the failure. */
export type MethodHandler = (call: MethodCall) => unknown;

export function targetChat({ world, bot, params }: MethodCall, field = "chat_id"): ChatLog {
  const raw = params.string(field) ?? "";
  if (raw === "") throw badRequest(`${field} is empty`);
  const chatId = world.resolveChatId(raw);
  const log = chatId === undefined ? undefined : world.chatLog(bot, chatId);
  if (!log) throw badRequest("chat not found");
  return log;
}

/** Telegram's 403s: a user who blocked the bot, a group the bot is not (or no longer) in. */
export function assertCanPost({ world, bot }: MethodCall, log: ChatLog): void {
  if (log.chat.type === "private") {
    if (bot.blockedBy.has(log.chatId)) throw forbidden("bot was blocked by the user");
    return;
  }
  const group = world.groups.get(log.chatId);
  const status = group && world.groupStatus(bot, group);
  const kind = log.chat.type === "group" ? "group" : "supergroup";
  if (status === "kicked") throw forbidden(`bot was kicked from the ${kind} chat`);
  if (status === "left") throw forbidden(`bot is not a member of the ${kind} chat`);
}

/** Counts an accepted message send against the flood limit (429 beyond it). */
export function admitSend({ world, bot }: MethodCall): void {
  bot.flood.admit(world.floodLimit, Date.now());
}

export function messageIdParam({ params }: MethodCall): number {
  const id = params.integer("message_id");
  if (id === undefined) throw badRequest("message identifier is not specified");
  return id;
}
