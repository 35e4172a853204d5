// Changing and deleting messages: editMessageText, editMessageCaption,
// editMessageReplyMarkup and deleteMessage. Like Telegram, an edit without reply_markup
// removes the inline keyboard, and an edit that changes nothing fails.

import type { Message } from "grammy/types";
import { badRequest } from "../api-error.js";
import { canonicalJson } from "../canonical-json.js";
import type { ChatLog } from "../chat-log.js";
import { readCaption, readMessageText } from "../formatted-text.js";
import { invoiceMarkup } from "../invoice.js";
import { type ReplyMarkup, readReplyMarkup } from "../reply-markup.js";
import type { StoredMessage } from "../types.js";
import { assertCanPost, type MethodCall, messageIdParam, targetChat } from "./method-call.js";
import { entitiesField } from "./send.js";

const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

export function editMessageText(call: MethodCall): Message {
  const { log, entry } = editableMessage(call);
  const { text, entities } = readMessageText(call.params, call.world.findUser);
  const markup = readReplyMarkup(call.params, true);
  if (entry.message.text === undefined) throw badRequest("there is no text in the message to edit");
  return applyEdit(call, log, entry, { text, entities: entitiesField(entities) }, markup);
}

export function editMessageCaption(call: MethodCall): Message {
  const { log, entry } = editableMessage(call);
  const caption = readCaption(call.params, call.world.findUser);
  const markup = readReplyMarkup(call.params, true);
  if (!entry.message.photo) throw badRequest("there is no caption in the message to edit");
  return applyEdit(
    call,
    log,
    entry,
    { caption: caption.text || undefined, caption_entities: entitiesField(caption.entities) },
    markup,
  );
}

export function editMessageReplyMarkup(call: MethodCall): Message {
  const { log, entry } = editableMessage(call);
  const markup = readReplyMarkup(call.params, true);
  // An invoice keeps its Pay button first.
  const { invoice } = entry.message;
  return applyEdit(call, log, entry, {}, invoice ? invoiceMarkup(markup, invoice) : markup);
}

export function deleteMessage(call: MethodCall): true {
  const { world, bot } = call;
  const log = targetChat(call);
  const entry = log.find(messageIdParam(call));
  if (!entry) throw badRequest("message to delete not found");
  // Outside private chats only admins may delete other people's messages.
  const group = world.groups.get(log.chatId);
  if (group && !entry.sentByBot && world.groupStatus(bot, group) !== "administrator") {
    throw badRequest("message can't be deleted");
  }
  entry.deleted = true;
  world.emit({ type: "delete", botId: bot.id, chatId: log.chatId, messageId: entry.messageId });
  return true;
}

function editableMessage(call: MethodCall): { log: ChatLog; entry: StoredMessage } {
  // Inline-mode messages are not emulated.
  if (call.params.string("inline_message_id")) throw badRequest("message to edit not found");
  const log = targetChat(call);
  // Telegram answers an edit in a chat it may not post to (blocked by the user) with the same 403.
  assertCanPost(call, log);
  const entry = log.find(messageIdParam(call));
  if (!entry) throw badRequest("message to edit not found");
  if (!entry.sentByBot) throw badRequest("message can't be edited");
  return { log, entry };
}

function applyEdit(
  call: MethodCall,
  log: ChatLog,
  entry: StoredMessage,
  changes: Partial<Message>,
  markup: ReplyMarkup | undefined,
): Message {
  const version = log.preview(entry, changes, markup, call.world.now());
  if (visibleContent(version) === visibleContent(entry.message)) throw badRequest(NOT_MODIFIED);
  log.commit(entry, version, markup);
  call.world.emit({ type: "edit", botId: call.bot.id, chatId: log.chatId, message: version });
  return version;
}

function visibleContent(message: Message): string {
  const { text, entities, caption, caption_entities, photo, reply_markup } = message;
  return canonicalJson({ text, entities, caption, caption_entities, photo, reply_markup });
}
