// Admin commands: /broadcast, /plans <code>, /broadcast_cancel. Everyone else is refused.
import { Composer } from "grammy";
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import { errorFields } from "../../../logger.js";
import { ProviderRejectedError } from "../../../provider/errors.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../i18n.js";
import { BROADCAST } from "./conversation.js";
import { planGroups } from "./views.js";

export function createBroadcastCommands(deps: BotDeps): Composer<BotContext> {
  const commands = new Composer<BotContext>();
  const chat = commands.chatType("private");
  const isAdmin = (ctx: BotContext) => deps.config.adminUserIds.includes(ctx.from?.id ?? 0);

  chat.command(["broadcast", "plans", "broadcast_cancel"], async (ctx, next) => {
    if (isAdmin(ctx)) return next();
    await ctx.reply(ctx.t("not-allowed"));
  });

  chat.command("broadcast", async (ctx) => {
    await ctx.conversation.exitAll();
    await ctx.conversation.enter(BROADCAST, localeOf(ctx), null);
  });

  chat.command("plans", async (ctx) => {
    const check = normalizeCustomerCode(ctx.match);
    if (!check.ok) {
      await ctx.reply(ctx.t("plans-usage"));
      return;
    }
    try {
      const info = await deps.provider.getCustomer(check.code);
      const connection = info.connections.find((c) => c.id === check.code) ?? info.connections[0];
      if (!connection) {
        await ctx.reply(ctx.t("no-connections"));
        return;
      }
      const offer = await deps.provider.getPackages(info.customer.cuid, connection);
      const content = {
        kind: "plans" as const,
        service: connection.service,
        groups: planGroups(offer.bouquets),
      };
      await ctx.conversation.exitAll();
      await ctx.conversation.enter(BROADCAST, localeOf(ctx), content);
    } catch (error) {
      if (error instanceof ProviderRejectedError) {
        await ctx.reply(ctx.t("plans-not-found"));
        return;
      }
      deps.logger.warn(errorFields(error), "plans lookup failed");
      await ctx.reply(ctx.t("provider-unavailable"));
    }
  });

  chat.command("broadcast_cancel", async (ctx) => {
    const running = await deps.broadcasts.running();
    for (const id of running) await deps.broadcasts.cancel(id);
    await ctx.reply(ctx.t(running.length > 0 ? "broadcast-cancelling" : "broadcast-none-running"));
  });
  return commands;
}
