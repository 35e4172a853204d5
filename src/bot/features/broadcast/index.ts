// Admin broadcasts: the /broadcast conversation, /plans <code>, /broadcast_cancel. Everyone
// else is refused. The subscriber registry (registry.ts) is installed apart, early.
import { createConversation } from "@grammyjs/conversations";
import { Composer } from "grammy";
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import { ask, type ReadFailure } from "../../../domain/provider-answers.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { BROADCAST_FLOW } from "../../shared/flow.js";
import { localeOf } from "../../shared/i18n.js";
import { createBroadcastConversation } from "./conversation.js";
import { planGroups } from "./views.js";

export function createBroadcast(deps: BotDeps): Composer<BotContext> {
  const broadcast = new Composer<BotContext>();
  broadcast.use(
    createConversation(createBroadcastConversation(deps), {
      id: BROADCAST_FLOW,
      maxMillisecondsToWait: deps.config.sessionIdleMs,
    }),
  );
  const chat = broadcast.chatType("private");
  const isAdmin = (ctx: BotContext) => deps.config.adminUserIds.includes(ctx.from?.id ?? 0);

  chat.command(["broadcast", "plans", "broadcast_cancel"], async (ctx, next) => {
    if (isAdmin(ctx)) return next();
    await ctx.reply(ctx.t("not-allowed"));
  });

  chat.command("broadcast", async (ctx) => {
    await ctx.conversation.exitAll();
    await ctx.conversation.enter(BROADCAST_FLOW, localeOf(ctx), null);
  });

  chat.command("plans", async (ctx) => {
    const check = normalizeCustomerCode(ctx.match);
    if (!check.ok) {
      await ctx.reply(ctx.t("plans-usage"));
      return;
    }
    const refuse = async (failure: ReadFailure) => {
      await ctx.reply(ctx.t(failure === "not-found" ? "plans-not-found" : "provider-unavailable"));
    };
    const found = await ask(
      () => deps.provider.getCustomer(check.code),
      deps.logger,
      "plans lookup",
    );
    if (!found.ok) return refuse(found.failure);
    const { customer, connections } = found.value;
    const connection = connections.find((c) => c.id === check.code) ?? connections[0];
    if (!connection) {
      await ctx.reply(ctx.t("no-connections"));
      return;
    }
    const listed = await ask(
      () => deps.provider.getPackages(customer.cuid, connection),
      deps.logger,
      "plans listing",
    );
    if (!listed.ok) return refuse(listed.failure);
    const content = {
      kind: "plans" as const,
      service: connection.service,
      groups: planGroups(listed.value.bouquets),
    };
    await ctx.conversation.exitAll();
    await ctx.conversation.enter(BROADCAST_FLOW, localeOf(ctx), content);
  });

  chat.command("broadcast_cancel", async (ctx) => {
    const running = await deps.broadcasts.running();
    for (const id of running) await deps.broadcasts.cancel(id);
    await ctx.reply(ctx.t(running.length > 0 ? "broadcast-cancelling" : "broadcast-none-running"));
  });
  return broadcast;
}
