// Everything the emulator knows: bots (each with its update queue, chats and callback
// queries), users, groups, uploaded files, the call record and the event listeners.
// HTTP methods and drivers both change it only through here and the chat logs.

import { createHash } from "node:crypto";
import type {
  CallbackQuery,
  Chat,
  MenuButton,
  Message,
  Update,
  User,
  UserFromGetMe,
} from "grammy/types";
import { BotCommands } from "./bot-commands.js";
import { ChatLog, type EmulatedChat, type MessageContent } from "./chat-log.js";
import { FloodWindow } from "./flood-control.js";
import { ForcedFailures } from "./forced-failures.js";
import { HeldCalls } from "./held-calls.js";
import type { ReplyMarkup } from "./reply-markup.js";
import type {
  ApiCall,
  BotRef,
  BotSpec,
  EmulatorEvent,
  FloodLimit,
  GroupSpec,
  PreCheckoutAnswer,
  StoredFile,
  StoredMessage,
  UpdateInput,
  UserSpec,
  WebhookDelivery,
  WebhookTiming,
} from "./types.js";
import { UpdateQueue } from "./update-queue.js";
import { WEBHOOK_DEFAULTS, type Webhook } from "./webhook-delivery.js";

const TOKEN = /^(\d+):([A-Za-z0-9_-]+)$/;

/** Telegram gives a bot 10 seconds to answer a pre-checkout query. */
const PRE_CHECKOUT_TIMEOUT_MS = 10_000;

export interface BotState {
  readonly id: number;
  readonly token: string;
  readonly me: UserFromGetMe;
  readonly updates: UpdateQueue;
  readonly flood: FloodWindow;
  readonly commands: BotCommands;
  /** setChatMenuButton's default for private chats (a chat's own is on its ChatLog). */
  menuButton: MenuButton | undefined;
  /** Users who blocked the bot. */
  readonly blockedBy: Set<number>;
  readonly callbackQueries: Map<string, CallbackQueryState>;
  readonly chats: Map<number, ChatLog>;
  /** What Telegram keeps of an invoice and never shows in the message (the payload). */
  readonly invoices: WeakMap<StoredMessage, InvoiceState>;
  /** createInvoiceLink's invoices, by the link's slug: in no chat until a user pays one. */
  readonly invoiceLinks: Map<string, StoredMessage>;
  readonly preCheckoutQueries: Map<string, PreCheckoutState>;
  /** Set by setWebhook: updates are then posted, and getUpdates is refused. */
  webhook: Webhook | undefined;
}

interface CallbackQueryState {
  userId: number;
  chatId: number;
  messageId: number;
  answered: boolean;
}

interface InvoiceState {
  payload: string;
  /** Needs a shipping_query first, which the emulator does not do. */
  isFlexible: boolean;
  /** Once paid, Telegram shows a receipt instead of the Pay button. */
  paid: boolean;
}

export interface PreCheckoutState {
  userId: number;
  chatId: number;
  messageId: number;
  /** "expired" once the user stopped waiting: a late answer is refused. */
  status: "pending" | "answered" | "expired";
  /** Hands an accepted answer to the waiting payment. */
  settle(answer: PreCheckoutAnswer): void;
}

export interface UserRecord {
  user: User;
  phoneNumber: string | undefined;
}

/** A member's status; bots can also have left or have been removed. */
export type GroupStatus = "creator" | "administrator" | "member" | "left" | "kicked";

export interface GroupRecord {
  chat: Chat.GroupChat | Chat.SupergroupChat;
  members: Map<number, GroupStatus>;
  /** A bot's status until something changes it. */
  botStatus: "member" | "administrator";
}

export class World {
  readonly bots = new Map<number, BotState>();
  readonly users = new Map<number, UserRecord>();
  readonly groups = new Map<number, GroupRecord>();
  readonly calls: ApiCall[] = [];
  readonly files = new Map<string, StoredFile>();
  readonly failures = new ForcedFailures();
  readonly held = new HeldCalls();
  readonly webhookDeliveries: WebhookDelivery[] = [];
  readonly webhookTiming: Required<WebhookTiming>;
  readonly preCheckoutAnswers: PreCheckoutAnswer[] = [];
  readonly preCheckoutTimeoutMs: number;
  private currentFloodLimit: FloodLimit | undefined;
  private readonly listeners = new Set<(event: EmulatorEvent) => void>();
  private sequence = 0;

  constructor(
    bots: BotSpec[],
    floodLimit: FloodLimit | undefined,
    webhook: WebhookTiming = {},
    preCheckoutTimeoutMs = PRE_CHECKOUT_TIMEOUT_MS,
  ) {
    if (!(Number.isFinite(preCheckoutTimeoutMs) && preCheckoutTimeoutMs > 0)) {
      throw new RangeError(`preCheckoutTimeoutMs must be positive, got ${preCheckoutTimeoutMs}`);
    }
    this.floodLimit = floodLimit;
    this.webhookTiming = { ...WEBHOOK_DEFAULTS, ...webhook };
    this.preCheckoutTimeoutMs = preCheckoutTimeoutMs;
    for (const spec of bots) {
      if (!this.botForToken(spec.token, spec)) throw new Error(`Invalid bot token "${spec.token}"`);
    }
  }

  get floodLimit(): FloodLimit | undefined {
    return this.currentFloodLimit;
  }

  /** A new rule counts from now, not from sends made before it applied. */
  set floodLimit(limit: FloodLimit | undefined) {
    if (limit && !(Number.isInteger(limit.perSecond) && limit.perSecond > 0)) {
      throw new RangeError(
        `floodLimit.perSecond must be a positive integer, got ${limit.perSecond}`,
      );
    }
    this.currentFloodLimit = limit;
    for (const bot of this.bots.values()) bot.flood.reset();
  }

  /** The bot a token names, registered on first use; undefined where Telegram answers 401. */
  botForToken(token: string, spec?: BotSpec): BotState | undefined {
    const match = TOKEN.exec(token);
    if (!match) return undefined;
    const id = Number(match[1]);
    const known = this.bots.get(id);
    if (known) return known.token === token ? known : undefined;
    if (!Number.isSafeInteger(id) || id <= 0) return undefined;
    const bot: BotState = {
      id,
      token,
      me: {
        id,
        is_bot: true,
        first_name: spec?.first_name ?? "Test Bot",
        username: spec?.username ?? `test_${id}_bot`,
        can_join_groups: true,
        can_read_all_group_messages: true,
        supports_inline_queries: false,
        can_connect_to_business: false,
        has_main_web_app: false,
        has_topics_enabled: false,
        allows_users_to_create_topics: false,
        can_manage_bots: false,
        supports_join_request_queries: false,
      },
      updates: new UpdateQueue(),
      flood: new FloodWindow(),
      commands: new BotCommands(),
      menuButton: undefined,
      blockedBy: new Set(),
      callbackQueries: new Map(),
      chats: new Map(),
      invoices: new WeakMap(),
      invoiceLinks: new Map(),
      preCheckoutQueries: new Map(),
      webhook: undefined,
    };
    this.bots.set(id, bot);
    return bot;
  }

  /** For test-side calls: a token or id, or the only bot when there is just one. */
  resolveBot(ref: BotRef | undefined): BotState {
    if (typeof ref === "string") {
      const bot = this.botForToken(ref);
      if (!bot)
        throw new Error(`Invalid bot token "${ref}" (or another secret for a known bot id)`);
      return bot;
    }
    if (typeof ref === "number") {
      const bot = this.bots.get(ref);
      if (!bot) throw new Error(`No bot with id ${ref} has been seen`);
      return bot;
    }
    const [only, ...others] = this.bots.values();
    if (!only) {
      throw new Error(
        "No bot has been seen yet: start the bot first, list it in options.bots or pass botToken",
      );
    }
    if (others.length > 0) {
      throw new Error(
        `Several bots have been seen (${[...this.bots.keys()].join(", ")}): pass botToken`,
      );
    }
    return only;
  }

  upsertUser(spec: UserSpec): UserRecord {
    if (!(Number.isSafeInteger(spec.id) && spec.id > 0)) {
      throw new RangeError(`User ids are positive integers, got ${spec.id}`);
    }
    if (this.bots.has(spec.id)) throw new RangeError(`${spec.id} is a bot's id`);
    const { id, phone_number, ...fields } = spec;
    const known = this.users.get(id);
    const record: UserRecord = {
      user: { id, is_bot: false, ...known?.user, ...fields },
      phoneNumber: phone_number ?? known?.phoneNumber,
    };
    this.users.set(spec.id, record);
    return record;
  }

  upsertGroup(spec: GroupSpec): GroupRecord {
    if (!(Number.isSafeInteger(spec.id) && spec.id < 0)) {
      throw new RangeError(`Group ids are negative integers, got ${spec.id}`);
    }
    const type = spec.type ?? "supergroup";
    const chat =
      type === "group"
        ? { id: spec.id, type, title: spec.title }
        : {
            id: spec.id,
            type,
            title: spec.title,
            ...(spec.username && { username: spec.username }),
          };
    const record: GroupRecord = {
      chat,
      members: this.groups.get(spec.id)?.members ?? new Map(),
      botStatus: spec.botStatus ?? "member",
    };
    this.groups.set(spec.id, record);
    return record;
  }

  /** A chat_id parameter ("123", -100, "@public_group") as a known chat id. */
  resolveChatId(raw: string): number | undefined {
    if (raw.startsWith("@")) {
      const name = raw.slice(1).toLowerCase();
      const group = [...this.groups.values()].find((g) => g.chat.username?.toLowerCase() === name);
      return group?.chat.id;
    }
    return /^-?\d+$/.test(raw) ? Number(raw) : undefined;
  }

  /** The chat as `bot` sees it; undefined when the emulator does not know the chat. */
  chatLog(bot: BotState, chatId: number): ChatLog | undefined {
    const existing = bot.chats.get(chatId);
    if (existing) return existing;
    const chat = this.chatObject(chatId);
    if (!chat) return undefined;
    const log = new ChatLog(bot.id, chat);
    bot.chats.set(chatId, log);
    return log;
  }

  private chatObject(chatId: number): EmulatedChat | undefined {
    const group = this.groups.get(chatId);
    if (group) return group.chat;
    const user = this.users.get(chatId)?.user;
    if (!user) return undefined;
    const { id, first_name, last_name, username } = user;
    return {
      id,
      type: "private",
      first_name,
      ...(last_name && { last_name }),
      ...(username && { username }),
    };
  }

  groupStatus(bot: BotState, group: GroupRecord): GroupStatus {
    return group.members.get(bot.id) ?? group.botStatus;
  }

  findUser = (id: number): User | undefined => this.users.get(id)?.user;

  /** Unix time in seconds, as message dates are. */
  now(): number {
    return Math.floor(Date.now() / 1000);
  }

  /** A new id, unique within the emulator, for callback queries and files. */
  nextId(): string {
    this.sequence += 1;
    return String(4_000_000_000 + this.sequence);
  }

  registerFile(file: Omit<StoredFile, "fileId">): string {
    const fileId = `AgACAgIAAxkBAAI${this.nextId()}`;
    this.files.set(fileId, { fileId, ...file });
    return fileId;
  }

  /** Stable per file id, like Telegram's file_unique_id. */
  uniqueFileId(fileId: string): string {
    return createHash("sha256").update(fileId).digest("base64url").slice(0, 16);
  }

  storeBotMessage(
    bot: BotState,
    log: ChatLog,
    content: Omit<MessageContent, "from">,
    markup: ReplyMarkup | undefined,
  ): StoredMessage {
    const entry = log.add({ from: botUser(bot), ...content }, this.now(), true, markup);
    this.emit({
      type: "message",
      botId: bot.id,
      chatId: log.chatId,
      message: entry.message,
      sentByBot: true,
    });
    return entry;
  }

  /** A user's message: stored, shown, and delivered to the bot if it is in the chat. */
  postUserMessage(
    bot: BotState,
    log: ChatLog,
    from: User,
    content: Omit<MessageContent, "from">,
  ): Message {
    return this.postUserUpdate(bot, log, from, content).message;
  }

  /** postUserMessage, with the update the bot got (undefined when it got none). */
  postUserUpdate(
    bot: BotState,
    log: ChatLog,
    from: User,
    content: Omit<MessageContent, "from">,
  ): { message: Message; update: Update | undefined } {
    const entry = log.add({ from, ...content }, this.now(), false);
    this.emit({
      type: "message",
      botId: bot.id,
      chatId: log.chatId,
      message: entry.message,
      sentByBot: false,
    });
    const group = this.groups.get(log.chatId);
    const status = group && this.groupStatus(bot, group);
    const update =
      status === "left" || status === "kicked"
        ? undefined
        : this.enqueue(bot, { message: { ...entry.message, chat: log.chat, from } });
    return { message: entry.message, update };
  }

  pressButton(bot: BotState, from: User, entry: StoredMessage, data: string): CallbackQuery {
    const id = this.nextId();
    bot.callbackQueries.set(id, {
      userId: from.id,
      chatId: entry.chatId,
      messageId: entry.messageId,
      answered: false,
    });
    const query: CallbackQuery = {
      id,
      from,
      message: entry.message,
      chat_instance: String(entry.chatId * 7 + bot.id),
      data,
    };
    this.enqueue(bot, { callback_query: query });
    return query;
  }

  enqueue(bot: BotState, content: Omit<Update, "update_id">): Update | undefined {
    return this.announce(bot, bot.updates.push(content));
  }

  inject(bot: BotState, input: UpdateInput): Update | undefined {
    return this.announce(bot, bot.updates.inject(input));
  }

  private announce(bot: BotState, update: Update | undefined): Update | undefined {
    if (update) this.emit({ type: "update", botId: bot.id, chatId: chatIdOf(update), update });
    return update;
  }

  emit(event: EmulatorEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A broken UI listener must not fail the bot's API call.
        process.emitWarning(`Telegram emulator event listener failed: ${String(error)}`);
      }
    }
  }

  subscribe(listener: (event: EmulatorEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/** The bot as it appears in messages and member lists. */
export function botUser(bot: BotState): User {
  const { id, is_bot, first_name, username } = bot.me;
  return { id, is_bot, first_name, username };
}

function chatIdOf(update: Update): number | undefined {
  const message =
    update.message ??
    update.edited_message ??
    update.channel_post ??
    update.callback_query?.message;
  return (
    message?.chat.id ??
    update.my_chat_member?.chat.id ??
    update.chat_member?.chat.id ??
    update.chat_join_request?.chat.id
  );
}
