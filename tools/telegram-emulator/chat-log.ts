// The messages of one chat as one bot sees it: ids increasing from 1, every version of
// every message, deletions kept as marks, and the reply keyboard the user currently sees.

import type { Chat, MenuButton, Message, ReplyKeyboardMarkup } from "grammy/types";
import { inlineKeyboardOf, type ReplyMarkup } from "./reply-markup.js";
import type { StoredMessage } from "./types.js";

/** The chats the emulator has: no channels. */
export type EmulatedChat = Exclude<Chat, Chat.ChannelChat>;

/** A message as quoted in reply_to_message, which Telegram never nests further. */
export type ReplyMessage = NonNullable<Message["reply_to_message"]>;

export function asReplyMessage(message: Message): ReplyMessage {
  const { reply_to_message: _, ...replied } = message;
  return replied as ReplyMessage;
}

/** A message's own fields; id, chat and date are the log's to give. */
export type MessageContent = Omit<Message, "message_id" | "chat" | "date">;

export class ChatLog {
  private nextMessageId = 1;
  private readonly stored = new Map<number, StoredMessage>();
  /** What a reply keyboard the bot sent last leaves on the user's screen. */
  replyKeyboard: ReplyKeyboardMarkup | undefined;
  /** setChatMenuButton's button for this private chat; none: the bot's default. */
  menuButton: MenuButton | undefined;

  constructor(
    readonly botId: number,
    readonly chat: EmulatedChat,
  ) {}

  get chatId(): number {
    return this.chat.id;
  }

  add(
    content: MessageContent,
    date: number,
    sentByBot: boolean,
    markup?: ReplyMarkup,
  ): StoredMessage {
    const { from, ...rest } = content;
    const message = withoutUndefined<Message>({
      message_id: this.nextMessageId++,
      from,
      chat: this.chat,
      date,
      ...rest,
      reply_markup: inlineKeyboardOf(markup),
    });
    const entry: StoredMessage = {
      botId: this.botId,
      chatId: this.chat.id,
      messageId: message.message_id,
      sentByBot,
      message,
      versions: [message],
      markup,
      deleted: false,
    };
    this.stored.set(entry.messageId, entry);
    if (markup && "keyboard" in markup) this.replyKeyboard = markup;
    if (markup && "remove_keyboard" in markup) this.replyKeyboard = undefined;
    return entry;
  }

  /** A message that exists (not deleted). */
  find(messageId: number): StoredMessage | undefined {
    const entry = this.stored.get(messageId);
    return entry && !entry.deleted ? entry : undefined;
  }

  /** The message with `changes` applied as a new version (not stored). */
  preview(
    entry: StoredMessage,
    changes: Partial<Message>,
    markup: ReplyMarkup | undefined,
    editDate: number,
  ): Message {
    return withoutUndefined<Message>({
      ...entry.message,
      ...changes,
      edit_date: editDate,
      reply_markup: inlineKeyboardOf(markup),
    });
  }

  commit(entry: StoredMessage, version: Message, markup: ReplyMarkup | undefined): void {
    entry.message = version;
    entry.versions.push(version);
    entry.markup = markup;
  }

  list(): StoredMessage[] {
    return [...this.stored.values()];
  }
}

function withoutUndefined<T>(value: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
