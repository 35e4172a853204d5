// What every support handler shares: answers in the asker's language, quoting their command
// (the audit of each lookup: shared/staff.ts).
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";

export const translator =
  (ctx: BotContext): Translate =>
  (key, variables) =>
    ctx.t(key, variables);

export const formatterOf = (deps: BotDeps, ctx: BotContext): ValueFormatter =>
  deps.formatter(localeOf(ctx));

/** An answer in the group, quoting the command it answers. */
export function answer(ctx: BotContext, text: string, extra: object = {}) {
  const messageId = ctx.msg?.message_id;
  return ctx.reply(text, {
    link_preview_options: { is_disabled: true },
    ...(messageId !== undefined && {
      reply_parameters: { message_id: messageId, allow_sending_without_reply: true },
    }),
    ...extra,
  });
}
