// Acting as Telegram users. A ChatUser is one user in one chat (their private chat with the
// bot, or a group): they send messages, press buttons, and wait for what the bot answers.
// Everything goes through the same state the HTTP API serves, so the bot sees real updates.

import type {
  BotCommand,
  BotCommandScope,
  CallbackQuery,
  Chat,
  Contact,
  InlineKeyboardButton,
  KeyboardButton,
  MenuButton,
  Message,
  MessageEntity,
  MessageOrigin,
  ReplyKeyboardMarkup,
  User,
} from "grammy/types";
import { asReplyMessage, type ChatLog } from "./chat-log.js";
import { payInvoice } from "./checkout.js";
import { setBlocked, setBotInGroup } from "./membership.js";
import type {
  BotRef,
  CallbackAnswer,
  EmulatorEvent,
  ForwardedInvoiceResult,
  MemberStatus,
  PaymentResult,
  PayOptions,
  StoredMessage,
  UserSpec,
} from "./types.js";
import type { BotState, World } from "./world.js";

export interface WaitOptions {
  /** Default 5000. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;
/** The stand-in senders Telegram uses for anonymous admins and for channels. */
const GROUP_ANONYMOUS_BOT = 1087968824;
const CHANNEL_BOT = 136817688;
const MESSAGES_SHOWN_ON_TIMEOUT = 5;
const COMMAND = /(?<=^|\s)\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?/g;

export class ChatUser {
  constructor(
    private readonly world: World,
    readonly id: number,
    readonly chatId: number,
    private readonly botRef: BotRef | undefined,
    /** Whom the messages are sent as: an anonymous admin's group, or a channel. */
    private readonly senderChat?: Chat,
  ) {}

  get user(): User {
    const record = this.world.users.get(this.id);
    if (!record) throw new Error(`Unknown user ${this.id}`);
    return record.user;
  }

  /**
   * A text message to the bot; commands get bot_command entities as in Telegram clients.
   * `viaBot`: the text is an inline bot's result the user chose (the message then names it in
   * `via_bot`, and Telegram finds commands in it all the same).
   */
  sendText(text: string, options: { replyTo?: number; viaBot?: User } = {}): Message {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    const entities: MessageEntity[] = [...text.matchAll(COMMAND)].map((match) => ({
      type: "bot_command",
      offset: match.index,
      length: match[0].length,
    }));
    const replied = options.replyTo === undefined ? undefined : this.existing(log, options.replyTo);
    return this.world.postUserMessage(bot, log, this.user, {
      ...(this.senderChat && { sender_chat: this.senderChat }),
      text,
      ...(entities.length > 0 && { entities }),
      ...(replied && { reply_to_message: asReplyMessage(replied.message) }),
      ...(options.viaBot && { via_bot: options.viaBot }),
    });
  }

  /**
   * Forwards a message this user can see (any chat's, another user's included) into this chat:
   * its content with its entities (a command stays a command, as in Telegram), and
   * `forward_origin` naming who wrote it (a forwarded forward keeps the first origin). Inline
   * buttons do not travel with it; an invoice is forwarded to people, not to the bot: see
   * payForwarded().
   */
  forward(original: Message): Message {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    if (original.invoice) throw new Error("An invoice is forwarded to people: use payForwarded()");
    const {
      message_id,
      chat,
      date,
      from,
      sender_chat,
      forward_origin,
      reply_to_message: _reply,
      reply_markup: _markup,
      edit_date: _edited,
      ...content
    } = original;
    const origin: MessageOrigin =
      forward_origin ??
      (chat.type === "channel"
        ? { type: "channel", chat, message_id, date }
        : sender_chat
          ? { type: "chat", sender_chat, date }
          : from
            ? { type: "user", sender_user: from, date }
            : { type: "hidden_user", sender_user_name: "Hidden", date });
    return this.world.postUserMessage(bot, log, this.user, {
      ...(this.senderChat && { sender_chat: this.senderChat }),
      ...content,
      forward_origin: origin,
    });
  }

  /** Shares a contact, by default the user's own (phone_number from the user spec). */
  sendContact(contact: Partial<Contact> = {}): Message {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    const phoneNumber = contact.phone_number ?? this.world.users.get(this.id)?.phoneNumber;
    if (!phoneNumber) {
      throw new Error(`User ${this.id} has no phone_number: pass one or set it in the user spec`);
    }
    const { first_name, last_name } = this.user;
    return this.world.postUserMessage(bot, log, this.user, {
      contact: {
        phone_number: phoneNumber,
        first_name: contact.first_name ?? first_name,
        ...((contact.last_name ?? last_name) && { last_name: contact.last_name ?? last_name }),
        user_id: contact.user_id ?? this.id,
      },
    });
  }

  /**
   * Presses the inline button with this label on the latest bot message that has one (or on
   * message `messageId`) and sends the bot its callback query.
   */
  press(label: string | RegExp, options: { messageId?: number } = {}): CallbackQuery {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    const candidates =
      options.messageId === undefined
        ? this.botEntries(log).reverse()
        : [this.existing(log, options.messageId)];
    for (const entry of candidates) {
      const button = inlineKeyboard(entry.message)
        .flat()
        .find((b) => matches(label, b.text));
      if (!button) continue;
      if ("pay" in button) {
        throw new Error(
          `Button "${button.text}" on message #${entry.messageId} is a Pay button: use pay(${entry.messageId})`,
        );
      }
      if (!("callback_data" in button)) {
        throw new Error(
          `Button "${button.text}" on message #${entry.messageId} has no callback_data: ${JSON.stringify(button)}`,
        );
      }
      return this.world.pressButton(bot, this.user, entry, button.callback_data);
    }
    const where =
      options.messageId === undefined ? "the bot's messages" : `message #${options.messageId}`;
    throw new Error(
      `No inline button ${String(label)} on ${where} in chat ${this.chatId}. Available: ${describeButtons(candidates)}`,
    );
  }

  /** A callback query with arbitrary data on message `messageId` (forged or stale data). */
  pressData(callbackData: string, messageId: number): CallbackQuery {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    return this.world.pressButton(bot, this.user, this.existing(log, messageId), callbackData);
  }

  /**
   * Taps Pay on invoice `messageId` and checks out: the bot gets a pre_checkout_query, and
   * after its ok the card is charged (or declined, `outcome`). Resolves when the payment
   * ended, at the latest after preCheckoutTimeoutMs; a message that is no invoice rejects.
   */
  async pay(messageId: number, options: PayOptions = {}): Promise<PaymentResult> {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    // Deleted messages included: paying one is "unavailable", not a mistake in the test.
    const entry = log.list().find((candidate) => candidate.messageId === messageId);
    if (!entry) throw new Error(`No message #${messageId} in chat ${this.chatId}`);
    return payInvoice(this.world, bot, log, this.user, entry, options);
  }

  /**
   * Opens an invoice link (createInvoiceLink, as a Mini App's openInvoice does) and pays it as
   * pay() does: the bot's pre_checkout_query and successful_payment come from this chat.
   */
  async payInvoiceLink(url: string, options: PayOptions = {}): Promise<PaymentResult> {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    const link = bot.invoiceLinks.get(/\/\$([^/?#]+)$/.exec(url)?.[1] ?? "");
    const state = link && bot.invoices.get(link);
    if (!link || !state) throw new Error(`No invoice link ${url}`);
    // The same invoice (one paid state), paid from this chat.
    const here = { ...link, chatId: log.chatId };
    bot.invoices.set(here, state);
    return payInvoice(this.world, bot, log, this.user, here, options);
  }

  /**
   * Taps the button of a copy of another chat's invoice (message `messageId` of chat
   * `invoiceChatId`) that its buyer forwarded to this user, outside the bot. Telegram forwards
   * an invoice that has a `start_parameter` with a deep link instead of the Pay button: this
   * user then opens the bot, which gets `/start <start_parameter>` from them ("opened-bot").
   * Without one the copy keeps the Pay button and this user pays the buyer's invoice as pay()
   * does: the pre_checkout_query is theirs, and the successful_payment arrives in their own
   * chat with the bot. `ignoreStartParameter`: a copy that kept its Pay button anyway (one
   * forwarded before the invoice had a start_parameter), to try the bot's own check.
   */
  async payForwarded(
    invoiceChatId: number,
    messageId: number,
    options: PayOptions & { ignoreStartParameter?: boolean } = {},
  ): Promise<ForwardedInvoiceResult> {
    const { bot, log } = this.context();
    this.assertCanWrite(bot, log);
    const source = this.world.chatLog(bot, invoiceChatId);
    const entry = source?.list().find((candidate) => candidate.messageId === messageId);
    if (!entry) throw new Error(`No message #${messageId} in chat ${invoiceChatId}`);
    const startParameter = entry.message.invoice?.start_parameter ?? "";
    if (startParameter !== "" && !options.ignoreStartParameter) {
      const message = this.sendText(`/start ${startParameter}`);
      return { kind: "opened-bot", startParameter, message };
    }
    return payInvoice(this.world, bot, log, this.user, entry, options);
  }

  /** Taps a button of the reply keyboard on screen: sends its text, or the contact it asks for. */
  tapReplyButton(label: string | RegExp): Message {
    const { log } = this.context();
    const buttons = log.replyKeyboard?.keyboard.flat() ?? [];
    const button = buttons.find((b) => matches(label, buttonText(b)));
    if (button === undefined) {
      const shown = buttons.map((b) => `[${buttonText(b)}]`).join(" ");
      throw new Error(
        `No reply keyboard button ${String(label)} in chat ${this.chatId}. Shown: ${shown || "no reply keyboard"}`,
      );
    }
    if (typeof button === "string") return this.sendText(button);
    if ("request_contact" in button && button.request_contact) return this.sendContact();
    const unsupported = Object.keys(button).find(
      (key) => key.startsWith("request_") || key === "web_app",
    );
    if (unsupported) throw new Error(`Buttons with ${unsupported} are not emulated`);
    return this.sendText(button.text);
  }

  block(): void {
    setBlocked(this.world, this.bot(), this.id, true);
  }

  unblock(): void {
    setBlocked(this.world, this.bot(), this.id, false);
  }

  /** The bot's messages in this chat, current versions, deleted ones left out. */
  messages(): Message[] {
    return this.botEntries(this.context().log).map((entry) => entry.message);
  }

  lastMessage(): Message | undefined {
    return this.messages().at(-1);
  }

  /** The first bot message sent or edited in this chat after the call that matches. */
  waitForMessage(
    predicate: (message: Message) => boolean = () => true,
    options: WaitOptions = {},
  ): Promise<Message> {
    return this.waitForBotMessage(predicate, options, "a bot message matching the predicate");
  }

  /** waitForMessage for a text or caption containing `expected` (or matching it). */
  waitForText(expected: string | RegExp, options: WaitOptions = {}): Promise<Message> {
    const contains = (message: Message): boolean => {
      const text = message.text ?? message.caption ?? "";
      return typeof expected === "string" ? text.includes(expected) : expected.test(text);
    };
    const shown = typeof expected === "string" ? JSON.stringify(expected) : String(expected);
    return this.waitForBotMessage(contains, options, `a bot message with text ${shown}`);
  }

  /** The next answerCallbackQuery for one of this user's callback queries in this chat. */
  waitForCallbackAnswer(options: WaitOptions = {}): Promise<CallbackAnswer> {
    return this.waitFor(
      (event) =>
        event.type === "callback-answer" &&
        event.answer.userId === this.id &&
        event.chatId === this.chatId
          ? event.answer
          : undefined,
      options,
      "an answer to a callback query",
    );
  }

  /** Button labels of an inline keyboard, by default the last bot message's. */
  inlineButtons(message: Message | undefined = this.lastMessage()): string[][] {
    return message ? inlineKeyboard(message).map((row) => row.map((button) => button.text)) : [];
  }

  /** The reply keyboard on screen, null when none is shown. */
  replyKeyboard(): ReplyKeyboardMarkup | null {
    return this.context().log.replyKeyboard ?? null;
  }

  /**
   * The chat's menu button as the bot set it (setChatMenuButton), in a private chat: the
   * chat's own, else the bot's default.
   */
  menuButton(): MenuButton | undefined {
    const { bot, log } = this.context();
    return log.chat.type === "private" ? (log.menuButton ?? bot.menuButton) : undefined;
  }

  /** The command menu a Telegram client would show this user here. */

  commands(): BotCommand[] {
    const { bot, log } = this.context();
    const chat_id = this.chatId;
    const user_id = this.id;
    const status = this.world.groups.get(chat_id)?.members.get(user_id);
    const admin = status === "administrator" || status === "creator";
    const scopes: BotCommandScope[] =
      log.chat.type === "private"
        ? [{ type: "chat", chat_id }, { type: "all_private_chats" }, { type: "default" }]
        : [
            { type: "chat_member", chat_id, user_id },
            ...(admin ? [{ type: "chat_administrators", chat_id } as const] : []),
            { type: "chat", chat_id },
            ...(admin ? [{ type: "all_chat_administrators" } as const] : []),
            { type: "all_group_chats" },
            { type: "default" },
          ];
    return bot.commands.resolve(scopes, this.user.language_code);
  }

  private bot(): BotState {
    return this.world.resolveBot(this.botRef);
  }

  private context(): { bot: BotState; log: ChatLog } {
    const bot = this.bot();
    const log = this.world.chatLog(bot, this.chatId);
    if (!log) throw new Error(`Unknown chat ${this.chatId}`);
    return { bot, log };
  }

  private assertCanWrite(bot: BotState, log: ChatLog): void {
    if (log.chat.type === "private" && bot.blockedBy.has(this.id)) {
      throw new Error(`User ${this.id} has blocked the bot: unblock() first`);
    }
  }

  private botEntries(log: ChatLog): StoredMessage[] {
    return log.list().filter((entry) => entry.sentByBot && !entry.deleted);
  }

  private existing(log: ChatLog, messageId: number): StoredMessage {
    const entry = log.find(messageId);
    if (!entry) throw new Error(`No message #${messageId} in chat ${this.chatId}`);
    return entry;
  }

  private waitForBotMessage(
    predicate: (message: Message) => boolean,
    options: WaitOptions,
    what: string,
  ): Promise<Message> {
    const { bot } = this.context();
    return this.waitFor(
      (event) =>
        ((event.type === "message" && event.sentByBot) || event.type === "edit") &&
        event.botId === bot.id &&
        event.chatId === this.chatId &&
        predicate(event.message)
          ? event.message
          : undefined,
      options,
      what,
    );
  }

  private waitFor<T>(
    select: (event: EmulatorEvent) => T | undefined,
    { timeoutMs = DEFAULT_TIMEOUT_MS }: WaitOptions,
    what: string,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unsubscribe = this.world.subscribe((event) => {
        const selected = select(event);
        if (selected === undefined) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(selected);
      });
      const timer = setTimeout(() => {
        unsubscribe();
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for ${what} in chat ${this.chatId}. ${this.recentMessages()}`,
          ),
        );
      }, timeoutMs);
    });
  }

  private recentMessages(): string {
    const recent = this.context()
      .log.list()
      .filter((entry) => !entry.deleted)
      .slice(-MESSAGES_SHOWN_ON_TIMEOUT);
    if (recent.length === 0) return "The chat is empty.";
    const lines = recent.map((entry) => {
      const body = describeContent(entry.message);
      const buttons = describeButtons([entry]);
      return `  #${entry.messageId} ${entry.sentByBot ? "bot" : "user"}: ${JSON.stringify(body)}${buttons === "none" ? "" : ` ${buttons}`}`;
    });
    return `Last messages:\n${lines.join("\n")}`;
  }
}

export class GroupDriver {
  constructor(
    private readonly world: World,
    readonly id: number,
    private readonly botRef: BotRef | undefined,
  ) {}

  /** A user in this group (added as a member) acting in the group chat. */
  member(spec: UserSpec, options: { status?: MemberStatus } = {}): ChatUser {
    this.world.upsertUser(spec);
    this.group().members.set(spec.id, options.status ?? "member");
    return new ChatUser(this.world, spec.id, this.id, this.botRef);
  }

  /**
   * An administrator posting anonymously: Telegram sends it from GroupAnonymousBot with the
   * group itself as sender_chat, so the bot cannot tell which admin it was.
   */
  anonymousAdmin(): ChatUser {
    return this.standIn(GROUP_ANONYMOUS_BOT, "Group", "GroupAnonymousBot", this.group().chat);
  }

  /** A user posting "as" a channel they own: from Channel_Bot, the channel as sender_chat. */
  asChannel(channel: { id: number; title: string }): ChatUser {
    const chat: Chat = { id: channel.id, type: "channel", title: channel.title };
    return this.standIn(CHANNEL_BOT, "Channel", "Channel_Bot", chat);
  }

  private standIn(id: number, first_name: string, username: string, senderChat: Chat): ChatUser {
    const record = this.world.upsertUser({ id, first_name, username });
    record.user = { ...record.user, is_bot: true };
    this.group().members.set(id, "member");
    return new ChatUser(this.world, id, this.id, this.botRef, senderChat);
  }

  addBot(by: ChatUser): void {
    setBotInGroup(this.world, this.world.resolveBot(this.botRef), this.id, by.user, true);
  }

  removeBot(by: ChatUser): void {
    setBotInGroup(this.world, this.world.resolveBot(this.botRef), this.id, by.user, false);
  }

  /** The bot's messages in the group, current versions, deleted ones left out. */
  messages(): Message[] {
    const log = this.world.chatLog(this.world.resolveBot(this.botRef), this.id);
    return (log?.list() ?? []).filter((e) => e.sentByBot && !e.deleted).map((e) => e.message);
  }

  private group() {
    const group = this.world.groups.get(this.id);
    if (!group) throw new Error(`Unknown group ${this.id}`);
    return group;
  }
}

function inlineKeyboard(message: Message): InlineKeyboardButton[][] {
  return message.reply_markup?.inline_keyboard ?? [];
}

function describeContent(message: Message): string {
  const { text, caption, photo, contact, invoice, successful_payment } = message;
  if (text !== undefined || caption !== undefined) return text ?? caption ?? "";
  if (photo) return "[photo]";
  if (contact) return "[contact]";
  if (invoice) return `[invoice ${invoice.title}]`;
  if (successful_payment) return "[successful payment]";
  return "[message]";
}

function buttonText(button: KeyboardButton): string {
  return typeof button === "string" ? button : button.text;
}

function matches(label: string | RegExp, text: string): boolean {
  return typeof label === "string" ? text === label : label.test(text);
}

function describeButtons(entries: StoredMessage[]): string {
  const described = entries
    .filter((entry) => inlineKeyboard(entry.message).length > 0)
    .map(
      (entry) =>
        `#${entry.messageId} ${inlineKeyboard(entry.message)
          .map((row) => row.map((b) => `[${b.text}]`).join(" "))
          .join(" / ")}`,
    );
  return described.length > 0 ? described.join("; ") : "none";
}
