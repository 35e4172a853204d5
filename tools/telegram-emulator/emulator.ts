// createTelegramEmulator: a local stand-in for api.telegram.org that a real grammY bot
// talks to over HTTP (`client.apiRoot`), plus the handles tests and the playground use to
// act as users, inject updates and faults, and look at what the bot did.

import type { Update, WebhookInfo } from "grammy/types";
import { ChatUser, GroupDriver } from "./driver.js";
import type { HeldCall } from "./held-calls.js";
import { setBlocked } from "./membership.js";
import { findMethod } from "./methods/registry.js";
import { webhookInfoOf } from "./methods/webhook.js";
import { startServer } from "./server.js";
import type {
  ApiCall,
  BotRef,
  DriverOptions,
  EmulatorEvent,
  FloodLimit,
  ForcedError,
  GroupSpec,
  PreCheckoutAnswer,
  StoredFile,
  StoredMessage,
  TelegramEmulatorOptions,
  UpdateInput,
  UserSpec,
  WebhookDelivery,
} from "./types.js";
import { World } from "./world.js";

export interface TelegramEmulator {
  /** For grammY's `client.apiRoot`, e.g. "http://127.0.0.1:40123". */
  readonly apiRoot: string;
  close(): Promise<void>;
  /** A user with a private chat with the bot; cheap, and the bot can message them at once. */
  user(spec: UserSpec, options?: DriverOptions): ChatUser;
  group(spec: GroupSpec, options?: DriverOptions): GroupDriver;
  /** Queues a raw update as is (a duplicate update_id included); undefined when allowed_updates filters it. */
  injectUpdate(bot: BotRef, update: UpdateInput): Update | undefined;
  blockUser(userId: number, bot?: BotRef): void;
  unblockUser(userId: number, bot?: BotRef): void;
  /** The next `times` calls of `method` fail with `error` instead of running. */
  failNext(method: string, error: ForcedError, times?: number): void;
  /**
   * The next call of `method` (in chat `chatId`, if given) waits before it runs until
   * `release()`: `reached` resolves once the bot made it.
   */
  holdNext(method: string, options?: { chatId?: number }): HeldCall;
  /** Replaces the flood rule (undefined: none); counting starts afresh. */
  setFloodLimit(limit: FloodLimit | undefined): void;
  calls(method?: string): ApiCall[];
  /** Every accepted answerPreCheckoutQuery, oldest first (refused calls are in calls()). */
  preCheckoutAnswers(): PreCheckoutAnswer[];
  /** Every message of a chat, deleted ones included, oldest first. */
  messages(chatId: number, bot?: BotRef): StoredMessage[];
  file(fileId: string): StoredFile | undefined;
  /** Every POST made to a webhook, oldest first. */
  webhookDeliveries(): WebhookDelivery[];
  /** What getWebhookInfo answers for the bot. */
  webhookInfo(bot?: BotRef): WebhookInfo;
  /** Returns the unsubscribe function. */
  onEvent(listener: (event: EmulatorEvent) => void): () => void;
}

export async function createTelegramEmulator(
  options: TelegramEmulatorOptions = {},
): Promise<TelegramEmulator> {
  const world = new World(
    options.bots ?? [],
    options.floodLimit,
    options.webhook,
    options.preCheckoutTimeoutMs,
  );
  const server = await startServer(world, options.host ?? "127.0.0.1", options.port ?? 0);

  return {
    apiRoot: server.apiRoot,
    close: () => {
      for (const bot of world.bots.values()) bot.webhook?.stop();
      return server.close();
    },

    user(spec, driverOptions = {}) {
      world.upsertUser(spec);
      if (driverOptions.botToken !== undefined) world.resolveBot(driverOptions.botToken);
      return new ChatUser(world, spec.id, spec.id, driverOptions.botToken);
    },

    group(spec, driverOptions = {}) {
      world.upsertGroup(spec);
      if (driverOptions.botToken !== undefined) world.resolveBot(driverOptions.botToken);
      return new GroupDriver(world, spec.id, driverOptions.botToken);
    },

    injectUpdate: (bot, update) => world.inject(world.resolveBot(bot), update),
    blockUser: (userId, bot) => setBlocked(world, world.resolveBot(bot), userId, true),
    unblockUser: (userId, bot) => setBlocked(world, world.resolveBot(bot), userId, false),

    failNext(method, error, times = 1) {
      const known = findMethod(method);
      if (!known) throw new Error(`failNext: "${method}" is not a method the emulator implements`);
      world.failures.add(known.name, error, times);
    },

    holdNext(method, options = {}) {
      const known = findMethod(method);
      if (!known) throw new Error(`holdNext: "${method}" is not a method the emulator implements`);
      return world.held.add(known.name, options.chatId);
    },

    setFloodLimit(limit) {
      world.floodLimit = limit;
    },

    calls: (method) =>
      world.calls.filter(
        (call) => method === undefined || call.method.toLowerCase() === method.toLowerCase(),
      ),

    preCheckoutAnswers: () => [...world.preCheckoutAnswers],
    messages: (chatId, bot) => world.chatLog(world.resolveBot(bot), chatId)?.list() ?? [],
    file: (fileId) => world.files.get(fileId),
    webhookDeliveries: () => [...world.webhookDeliveries],
    webhookInfo: (bot) => webhookInfoOf(world.resolveBot(bot)),
    onEvent: (listener) => world.subscribe(listener),
  };
}
