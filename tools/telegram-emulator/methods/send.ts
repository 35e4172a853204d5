// Methods that post into a chat: sendMessage, sendPhoto, sendDocument, copyMessage,
// forwardMessage and sendChatAction.

import type { Document, Message, MessageEntity, PhotoSize } from "grammy/types";
import { badRequest } from "../api-error.js";
import {
  asReplyMessage,
  type ChatLog,
  type MessageContent,
  type ReplyMessage,
} from "../chat-log.js";
import { readCaption, readMessageText } from "../formatted-text.js";
import { readReplyMarkup } from "../reply-markup.js";
import {
  admitSend,
  assertCanPost,
  type MethodCall,
  messageIdParam,
  targetChat,
} from "./method-call.js";

const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

// The emulator does not look at images; every photo gets one plausible size.
const PHOTO_WIDTH = 1280;
const PHOTO_HEIGHT = 720;

/** Entities as Telegram returns them: the field is left out when there are none. */
export function entitiesField(entities: MessageEntity[]): MessageEntity[] | undefined {
  return entities.length > 0 ? entities : undefined;
}

export function sendMessage(call: MethodCall): Message {
  const log = targetChat(call);
  const { text, entities } = readMessageText(call.params, call.world.findUser);
  return post(call, log, { text, entities: entitiesField(entities) });
}

export function sendPhoto(call: MethodCall): Message {
  const log = targetChat(call);
  const photo = readPhoto(call);
  const caption = readCaption(call.params, call.world.findUser);
  return post(call, log, {
    photo,
    caption: caption.text || undefined,
    caption_entities: entitiesField(caption.entities),
  });
}

/** An uploaded document keeps its bytes (emulator.file(id).upload) for tests to read. */
export function sendDocument(call: MethodCall): Message {
  const log = targetChat(call);
  const document = readDocument(call);
  const caption = readCaption(call.params, call.world.findUser);
  return post(call, log, {
    document,
    caption: caption.text || undefined,
    caption_entities: entitiesField(caption.entities),
  });
}

export function copyMessage(call: MethodCall): { message_id: number } {
  const log = targetChat(call);
  const source = sourceMessage(call, "message to copy not found");
  // Invoices and service messages cannot be copied.
  if (source.invoice || source.successful_payment) throw badRequest("message can't be copied");
  const content = copiedContent(source);
  if (source.photo && call.params.string("caption") !== undefined) {
    const caption = readCaption(call.params, call.world.findUser);
    content.caption = caption.text || undefined;
    content.caption_entities = entitiesField(caption.entities);
  }
  return { message_id: post(call, log, content).message_id };
}

export function forwardMessage(call: MethodCall): Message {
  const log = targetChat(call);
  const source = sourceMessage(call, "message to forward not found");
  const sender = source.from;
  const forwardOrigin: Message["forward_origin"] = sender
    ? { type: "user", sender_user: sender, date: source.date }
    : { type: "hidden_user", sender_user_name: "Unknown", date: source.date };
  return postWithoutMarkup(call, log, { ...copiedContent(source), forward_origin: forwardOrigin });
}

export function sendChatAction(call: MethodCall): true {
  const log = targetChat(call);
  const action = call.params.string("action") ?? "";
  if (!CHAT_ACTIONS.has(action)) throw badRequest("wrong parameter action in request");
  assertCanPost(call, log);
  call.world.emit({ type: "chat-action", botId: call.bot.id, chatId: log.chatId, action });
  return true;
}

function post(call: MethodCall, log: ChatLog, content: Omit<MessageContent, "from">): Message {
  const markup = readReplyMarkup(call.params, false);
  const replyTo = replyTarget(call, log);
  assertCanPost(call, log);
  admitSend(call);
  return call.world.storeBotMessage(
    call.bot,
    log,
    { ...content, reply_to_message: replyTo },
    markup,
  ).message;
}

function postWithoutMarkup(
  call: MethodCall,
  log: ChatLog,
  content: Omit<MessageContent, "from">,
): Message {
  assertCanPost(call, log);
  admitSend(call);
  return call.world.storeBotMessage(call.bot, log, content, undefined).message;
}

/** reply_parameters (or the older reply_to_message_id) as the replied-to message. */
export function replyTarget(call: MethodCall, log: ChatLog): ReplyMessage | undefined {
  const parameters = call.params.json("reply_parameters");
  const given = typeof parameters === "object" && parameters !== null;
  const messageId = given
    ? (parameters as { message_id?: unknown }).message_id
    : call.params.integer("reply_to_message_id");
  if (messageId === undefined) return undefined;
  const withoutReply = given
    ? (parameters as { allow_sending_without_reply?: unknown }).allow_sending_without_reply === true
    : call.params.boolean("allow_sending_without_reply");
  const target = typeof messageId === "number" ? log.find(messageId) : undefined;
  if (target) return asReplyMessage(target.message);
  if (withoutReply) return undefined;
  throw badRequest("message to be replied not found");
}

function sourceMessage(call: MethodCall, notFound: string): Message {
  const from = targetChat(call, "from_chat_id");
  const source = from.find(messageIdParam(call));
  if (!source) throw badRequest(notFound);
  return source.message;
}

/** The content a copy or forward carries over. */
function copiedContent(source: Message): Omit<MessageContent, "from"> {
  const { text, entities, photo, caption, caption_entities, contact } = source;
  return { text, entities, photo, caption, caption_entities, contact };
}

function readPhoto(call: MethodCall): PhotoSize[] {
  const { world, params } = call;
  const upload = params.upload("photo");
  const given = params.string("photo") ?? "";
  let fileId: string;
  if (upload) fileId = world.registerFile({ upload });
  else if (/^https?:\/\//i.test(given)) fileId = world.registerFile({ url: given });
  else if (given !== "" && !given.startsWith("attach://")) fileId = given;
  else throw badRequest("there is no photo in the request");
  return [
    {
      file_id: fileId,
      file_unique_id: world.uniqueFileId(fileId),
      width: PHOTO_WIDTH,
      height: PHOTO_HEIGHT,
    },
  ];
}

function readDocument(call: MethodCall): Document {
  const { world, params } = call;
  const upload = params.upload("document");
  const given = params.string("document") ?? "";
  let fileId: string;
  if (upload) fileId = world.registerFile({ upload });
  else if (/^https?:\/\//i.test(given)) fileId = world.registerFile({ url: given });
  else if (given !== "" && !given.startsWith("attach://")) fileId = given;
  else throw badRequest("there is no document in the request");
  const file = world.files.get(fileId);
  return {
    file_id: fileId,
    file_unique_id: world.uniqueFileId(fileId),
    file_name: file?.upload?.filename,
    file_size: file?.upload?.bytes.length,
  };
}
