import type { MiddlewareFn } from "grammy";
import type { Redis } from "ioredis";
import type { RedisKeys } from "../../domain/redis-keys.js";
import type { Logger } from "../../logger.js";
import type { BotContext } from "../context.js";

/**
 * Drops an update whose id was seen before, by this or another instance: Telegram and the
 * runner give no exactly-once delivery.
 */
export function dropDuplicateUpdates(
  redis: Redis,
  keys: RedisKeys,
  logger: Logger,
  rememberSeconds = 86_400,
): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const updateId = ctx.update.update_id;
    const first = await redis.set(keys.update(updateId), "1", "EX", rememberSeconds, "NX");
    if (first !== "OK") {
      logger.info({ updateId }, "duplicate update dropped");
      return;
    }
    await next();
  };
}
