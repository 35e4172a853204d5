// What the support handlers share: the audit trail, the Refresh ids, and the steps every
// lookup takes (audit, log without personal data, answer in the asker's language).
import type { LookupRefs } from "../../../domain/lookup-refs.js";
import type { SupportAudit, SupportCommand } from "../../../domain/support-audit.js";
import { errorFields } from "../../../logger.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import type { ValueFormatter } from "../../format/values.js";
import { localeOf } from "../../i18n.js";
import type { Translate } from "../topup/views.js";

export const HTML = { parse_mode: "HTML", link_preview_options: { is_disabled: true } } as const;

export interface SupportTools {
  deps: BotDeps;
  audit: SupportAudit;
  refs: LookupRefs;
}

export const translator =
  (ctx: BotContext): Translate =>
  (key, variables) =>
    ctx.t(key, variables);

export const formatterOf = (tools: SupportTools, ctx: BotContext): ValueFormatter =>
  tools.deps.formatter(localeOf(ctx));

/**
 * Records a lookup before it happens: in the audit stream with the code, in the log without
 * it (user id, chat id and command only). Throws when the audit cannot be written, so that
 * nothing is looked up unaudited.
 */
export async function audited(
  tools: SupportTools,
  ctx: BotContext,
  command: SupportCommand,
  code: string,
): Promise<void> {
  const userId = ctx.from?.id ?? 0;
  const chatId = ctx.chat?.id ?? 0;
  await tools.audit.record({ userId, chatId, command, code, at: tools.deps.now() });
  tools.deps.logger.info({ userId, chatId, command }, "support lookup");
}

/** An answer in the chat, quoting the command it answers. */
export function answer(ctx: BotContext, text: string, extra: object = {}) {
  const messageId = ctx.msg?.message_id;
  return ctx.reply(text, {
    ...HTML,
    ...(messageId !== undefined && {
      reply_parameters: { message_id: messageId, allow_sending_without_reply: true },
    }),
    ...extra,
  });
}

/**
 * Runs a support handler; a failure of ours (Redis, Telegram) is logged without personal data
 * and answered with a short apology instead of silence.
 */
export function guarded(
  tools: SupportTools,
  command: SupportCommand,
  handler: (ctx: BotContext) => Promise<unknown>,
): (ctx: BotContext) => Promise<void> {
  return async (ctx) => {
    try {
      await handler(ctx);
    } catch (error) {
      tools.deps.logger.error(
        { ...errorFields(error), userId: ctx.from?.id, chatId: ctx.chat?.id, command },
        "support command failed",
      );
      await answer(ctx, ctx.t("support-error")).catch(() => undefined);
    }
  };
}
