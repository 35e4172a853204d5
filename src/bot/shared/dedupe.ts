import type { MiddlewareFn } from "grammy";
import type { Log } from "../../domain/ports.js";
import type { BotContext } from "../context.js";

export interface UpdateLog {
  /** True the first time an update id is seen, by any instance. */
  firstDelivery(updateId: number): Promise<boolean>;
}

/**
 * Drops an update whose id was seen before, by this or another instance: Telegram and the
 * runner give no exactly-once delivery.
 */
export function dropDuplicateUpdates(updates: UpdateLog, log: Log): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const updateId = ctx.update.update_id;
    if (!(await updates.firstDelivery(updateId))) {
      log.info({ updateId }, "duplicate update dropped");
      return;
    }
    await next();
  };
}
