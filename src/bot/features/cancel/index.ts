import { Composer } from "grammy";
import type { BotContext } from "../../context.js";

export const cancel = new Composer<BotContext>();

/** Leaves any flow from any step and takes its keyboards away. */
cancel.chatType("private").command("cancel", async (ctx) => {
  const journey = ctx.session.journey;
  const active = Object.keys(ctx.conversation.active()).length > 0 || journey !== undefined;
  await ctx.conversation.exitAll();
  ctx.session.journey = undefined;
  if (journey?.menuMessageId) {
    await ctx.api
      .editMessageReplyMarkup(ctx.chat.id, journey.menuMessageId, { reply_markup: undefined })
      .catch(() => undefined);
  }
  await ctx.reply(ctx.t(active ? "cancelled" : "nothing-to-cancel"), {
    reply_markup: { remove_keyboard: true },
  });
});
