import type { I18n } from "@grammyjs/i18n";
import type { Redis } from "ioredis";
import type { Config } from "../config/config.js";
import type { BroadcastStore } from "../domain/broadcast.js";
import type { Journal } from "../domain/journal.js";
import type { RedisKeys } from "../domain/redis-keys.js";
import type { SubscriberRegistry } from "../domain/subscribers.js";
import type { TopupService } from "../domain/topup.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { ProviderApi } from "../provider/client.js";
import type { BotContext } from "./context.js";
import type { ValueFormatter } from "./format/values.js";
import type { RedisSessionStorage } from "./session-storage.js";

/** What the Telegram layer needs from the rest of the application. */
export interface BotDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  provider: ProviderApi;
  topups: TopupService;
  journal: Journal;
  sessions: RedisSessionStorage;
  /** The shared Redis connection and its keys (support audit and Refresh ids). */
  redis: Redis;
  keys: RedisKeys;
  subscribers: SubscriberRegistry;
  broadcasts: BroadcastStore;
  /** Hands a stored broadcast to the sending queue. */
  enqueueBroadcast(id: string): Promise<void>;
  i18n: I18n<BotContext>;
  formatter(locale: string): ValueFormatter;
  now(): number;
}
