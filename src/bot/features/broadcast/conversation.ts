// /broadcast and /plans as a conversation: the message (or the plan information), the
// audience, a preview exactly as recipients will see it, then Confirm or Cancel.
import { InlineKeyboard } from "grammy";
import type { BroadcastContent, Recipient } from "../../../domain/broadcast.js";
import type { Audience } from "../../../domain/subscribers.js";
import type { FlowContext, Locale } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { type FlowConversation, nextInFlow } from "../flow.js";
import { newJourneyId } from "../topup/purchase.js";
import type { Translate } from "../topup/views.js";

export const BROADCAST = "broadcast";

const AUDIENCES: Record<string, Audience> = {
  all: { kind: "everyone" },
  en: { kind: "language", language: "en" },
  ne: { kind: "language", language: "ne" },
  tv: { kind: "service", service: "tv" },
  internet: { kind: "service", service: "internet" },
  iptv: { kind: "service", service: "iptv" },
};
const AUDIENCE_LABELS: Record<string, string> = {
  all: "audience-everyone",
  en: "audience-english",
  ne: "audience-nepali",
  tv: "audience-tv",
  internet: "audience-internet",
  iptv: "audience-iptv",
};

export type Preview = (
  chatId: number,
  language: string,
  content: BroadcastContent,
) => Promise<void>;

export function createBroadcastConversation(deps: BotDeps, preview: Preview) {
  return async function broadcast(
    conversation: FlowConversation,
    ctx: FlowContext,
    locale: Locale,
    prepared: BroadcastContent | null,
  ) {
    const t: Translate = (key, variables) => deps.i18n.t(locale, key, variables);
    const token = await conversation.external(() => newJourneyId());
    const own = new RegExp(`^bc:${token}:`);
    const next = () => nextInFlow(conversation, own);
    const chatId = ctx.chat?.id ?? 0;

    let content = prepared;
    if (!content) await ctx.reply(t("broadcast-ask-message"));
    while (!content) {
      const message = (await next()).message;
      if (message?.text !== undefined || message?.photo !== undefined) {
        content = { kind: "copy", fromChatId: chatId, messageId: message.message_id };
      } else {
        await ctx.reply(t("broadcast-ask-message"));
      }
    }

    const choices = new InlineKeyboard();
    Object.keys(AUDIENCES).forEach((key, index) => {
      choices.text(t(AUDIENCE_LABELS[key] ?? key), `bc:${token}:a:${key}`);
      if (index % 2 === 1) choices.row();
    });
    await ctx.reply(t("broadcast-ask-audience"), { reply_markup: choices });
    let audienceKey: string | undefined;
    while (!audienceKey) {
      const pick = await next();
      const key = pick.callbackQuery?.data?.split(":")[3];
      if (key && AUDIENCES[key]) {
        audienceKey = key;
        await pick.answerCallbackQuery();
      } else if (pick.callbackQuery) {
        await pick.answerCallbackQuery();
      } else {
        await pick.reply(t("hint-use-buttons"));
      }
    }
    const audience = AUDIENCES[audienceKey] as Audience;

    const finalContent = content;
    await conversation.external(() => preview(chatId, locale, finalContent));
    const count = await conversation.external(
      async () => (await deps.subscribers.audience(audience)).length,
    );
    await ctx.reply(
      t("broadcast-confirm", { count, audience: t(AUDIENCE_LABELS[audienceKey] ?? "") }),
      {
        reply_markup: new InlineKeyboard()
          .text(t("button-send"), `bc:${token}:go`)
          .text(t("button-cancel"), `bc:${token}:no`),
      },
    );
    for (;;) {
      const answer = await next();
      const data = answer.callbackQuery?.data;
      if (!data) {
        await answer.reply(t("hint-use-buttons"));
        continue;
      }
      await answer.answerCallbackQuery();
      await answer.editMessageReplyMarkup({ reply_markup: undefined });
      if (data.endsWith(":no")) {
        await answer.reply(t("broadcast-not-sent"));
        return;
      }
      if (data.endsWith(":go")) break;
    }

    await conversation.external(async (outside) => {
      const recipients: Recipient[] = (await deps.subscribers.audience(audience)).map((s) => ({
        id: s.id,
        language: s.language,
      }));
      const progress = await outside.reply(
        t("broadcast-progress", {
          total: recipients.length,
          sent: 0,
          failed: 0,
          blocked: 0,
          remaining: recipients.length,
        }),
      );
      const id = `${deps.now().toString(36)}${token}`;
      await deps.broadcasts.create(
        {
          id,
          adminChatId: chatId,
          adminLanguage: locale,
          progressMessageId: progress.message_id,
          content: finalContent,
          audience,
          createdAt: deps.now(),
          total: recipients.length,
        },
        recipients,
      );
      await deps.enqueueBroadcast(id);
      deps.logger.info(
        { broadcastId: id, admin: outside.from?.id, total: recipients.length },
        "broadcast queued",
      );
    });
  };
}
