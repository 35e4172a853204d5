// /cancel: leaves any flow from any step and takes its keyboards away. It is handled at once,
// even while the chat's previous update still waits for the provider (see bot.ts); that
// update then drops its late result.
import { Composer } from "grammy";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { BROADCAST_FLOW } from "../../shared/flow.js";

export function createCancel(deps: BotDeps): Composer<BotContext> {
  const cancel = new Composer<BotContext>();
  cancel.chatType("private").command("cancel", async (ctx) => {
    const pending = await deps.cancels.mark(ctx.chat.id, deps.now());
    // An invoice not paid yet becomes unpayable.
    const withdrawn = (await deps.payments?.cancel(ctx.chat.id)) ?? 0;
    const journey = ctx.session.journey;
    const flows = Object.keys(ctx.conversation.active());
    const active = pending || withdrawn > 0 || flows.length > 0 || journey !== undefined;
    // Say what was cancelled: an admin's broadcast is not a top-up.
    const said = flows.includes(BROADCAST_FLOW)
      ? "cancelled-broadcast"
      : active
        ? "cancelled"
        : "nothing-to-cancel";
    await ctx.conversation.exitAll();
    ctx.session.journey = undefined;
    if (journey?.menuMessageId) {
      await ctx.api
        .editMessageReplyMarkup(ctx.chat.id, journey.menuMessageId, { reply_markup: undefined })
        .catch(() => undefined);
    }
    await ctx.reply(ctx.t(said), {
      reply_markup: { remove_keyboard: true },
    });
  });
  return cancel;
}

export const isCancel = (ctx: BotContext) =>
  ctx.chat?.type === "private" && /^\/cancel(@\w+)?(\s|$)/.test(ctx.message?.text ?? "");

/**
 * /cancel skips the chat's queue while the chat's flow waits for the provider (in this process
 * here; across instances the update gate does the same): it must not wait behind a slow call.
 * Otherwise it takes its turn, so that it sees what came before it.
 */
export const skipsQueue = (ctx: BotContext, deps: BotDeps) =>
  isCancel(ctx) && deps.cancels.waitsHere(ctx.chat?.id ?? 0);
