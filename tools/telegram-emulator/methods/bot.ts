// The bot's own methods: getMe, getUpdates, the command lists, and the
// profile settings the emulator only acknowledges.

import type { BotCommand, BotCommandScope, MenuButton, Update, UserFromGetMe } from "grammy/types";
import { ApiError, badRequest } from "../api-error.js";
import { characterCount } from "../formatted-text.js";
import { type MethodCall, targetChat } from "./method-call.js";

const SCOPE_TYPES = new Set([
  "default",
  "all_private_chats",
  "all_group_chats",
  "all_chat_administrators",
  "chat",
  "chat_administrators",
  "chat_member",
]);

const MAX_COMMANDS = 100;

export function getMe({ bot }: MethodCall): UserFromGetMe {
  return bot.me;
}

export function getUpdates({ bot, params, signal }: MethodCall): Promise<Update[]> {
  if (bot.webhook) {
    throw new ApiError(
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
  }
  const allowed = params.json("allowed_updates");
  if (allowed !== undefined && !isStringArray(allowed)) {
    throw badRequest("can't parse allowed_updates JSON array");
  }
  return bot.updates.poll({
    offset: params.integer("offset"),
    limit: params.integer("limit"),
    timeoutSeconds: params.integer("timeout") ?? 0,
    allowedUpdates: allowed,
    signal,
  });
}

export function setMyCommands(call: MethodCall): true {
  const raw = call.params.json("commands");
  if (!Array.isArray(raw)) throw badRequest('parameter "commands" is required');
  if (raw.length > MAX_COMMANDS) throw badRequest("too many commands specified");
  const commands = raw.map(readCommand);
  call.bot.commands.set(readScope(call), call.params.string("language_code") ?? "", commands);
  return true;
}

export function getMyCommands(call: MethodCall): BotCommand[] {
  return call.bot.commands.get(readScope(call), call.params.string("language_code") ?? "");
}

export function deleteMyCommands(call: MethodCall): true {
  call.bot.commands.set(readScope(call), call.params.string("language_code") ?? "", []);
  return true;
}

/**
 * setChatMenuButton: what a client draws beside the text box. Without chat_id, the private
 * chats' default; with one, that private chat's own ("default" there: the bot's default again).
 */
export function setChatMenuButton(call: MethodCall): true {
  const button = call.params.json("menu_button") as MenuButton | undefined;
  if (button?.type === "web_app" && !/^https?:\/\//.test(button.web_app?.url ?? "")) {
    throw badRequest("BUTTON_URL_INVALID");
  }
  if (call.params.string("chat_id") === undefined) {
    call.bot.menuButton = button;
    return true;
  }
  const log = targetChat(call);
  if (log.chat.type !== "private") throw badRequest("CHAT_TYPE_INVALID");
  log.menuButton = button?.type === "default" ? undefined : button;
  return true;
}

/** setMyDescription, setMyShortDescription: accepted, not modelled. */
export function acknowledge(): true {
  return true;
}

function readCommand(raw: unknown): BotCommand {
  const { command, description } = (typeof raw === "object" && raw !== null ? raw : {}) as Record<
    string,
    unknown
  >;
  if (typeof command !== "string" || !/^[a-z0-9_]{1,32}$/.test(command)) {
    throw badRequest("BOT_COMMAND_INVALID");
  }
  if (
    typeof description !== "string" ||
    description.trim() === "" ||
    characterCount(description) > 256
  ) {
    throw badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
  }
  return { command, description };
}

function readScope({ world, bot, params }: MethodCall): BotCommandScope {
  const raw = params.json("scope");
  if (raw === undefined || raw === null) return { type: "default" };
  const { type, chat_id, user_id } = (typeof raw === "object" ? raw : {}) as Record<
    string,
    unknown
  >;
  if (typeof type !== "string" || !SCOPE_TYPES.has(type))
    throw badRequest("wrong scope type specified");
  if (type !== "chat" && type !== "chat_administrators" && type !== "chat_member") {
    return { type } as BotCommandScope;
  }
  // As Telegram: a chat the bot cannot reach (one the emulator does not know yet, such as a
  // user who has not written to the bot) is not found.
  const chatId = world.resolveChatId(String(chat_id ?? ""));
  if (chatId === undefined || !world.chatLog(bot, chatId)) throw badRequest("chat not found");
  if (type !== "chat_member") return { type, chat_id: chatId };
  if (typeof user_id !== "number") throw badRequest("invalid user_id specified");
  return { type, chat_id: chatId, user_id };
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
