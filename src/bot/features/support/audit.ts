// What every support handler does around a lookup: audit it, log it without personal data,
// and answer in the asker's language, quoting their command.
import type { SupportCommand } from "../../../domain/support-audit.js";
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

/**
 * Records a lookup before it happens: in the audit trail with the code, in the log without
 * it (user id, chat id and command only). Throws when the audit cannot be written, so that
 * nothing is looked up unaudited.
 */
export async function audited(
  deps: BotDeps,
  ctx: BotContext,
  command: SupportCommand,
  code: string,
): Promise<void> {
  const staff = ctx.from?.id ?? 0;
  const group = ctx.chat?.id ?? 0;
  await deps.audit.record({ staff, group, command, code, at: deps.now() });
  deps.logger.info({ userId: staff, chatId: group, command }, "support lookup");
}

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
