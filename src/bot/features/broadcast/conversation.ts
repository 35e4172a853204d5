// /broadcast and /plans as a conversation: the message (or the plan information), the
// audience, a preview exactly as recipients will see it, then Confirm or Cancel.
import { InlineKeyboard } from "grammy";
import type { BroadcastContent, Recipient } from "../../../domain/broadcast.js";
import { type Audience, audienceOf } from "../../../domain/subscribers.js";
import type { FlowContext, Locale } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { beginFlow, type FlowConversation, nextInFlow } from "../../shared/flow.js";
import { broadcastButtons } from "./callback-data.js";
import { copyReference } from "./delivery.js";

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

export function createBroadcastConversation(deps: BotDeps) {
  return async function broadcast(
    conversation: FlowConversation,
    ctx: FlowContext,
    locale: Locale,
    prepared: BroadcastContent | null,
  ) {
    const { t, id: token } = await beginFlow(conversation, deps.i18n, locale);
    const isOwnButton = (data: string) => {
      const button = broadcastButtons.decode(data);
      return button !== null && "token" in button && button.token === token;
    };
    const next = () => nextInFlow(conversation, isOwnButton);
    const chatId = ctx.chat?.id ?? 0;

    let content = prepared;
    if (!content) await ctx.reply(t("broadcast-ask-message"));
    while (!content) {
      const message = (await next()).message;
      if (message?.text !== undefined || message?.photo !== undefined) {
        content = { kind: "copy", message: copyReference(chatId, message.message_id) };
      } else {
        await ctx.reply(t("broadcast-ask-message"));
      }
    }

    const choices = new InlineKeyboard();
    Object.keys(AUDIENCES).forEach((key, index) => {
      const data = broadcastButtons.encode({ kind: "audience", token, audience: key });
      choices.text(t(AUDIENCE_LABELS[key] ?? key), data);
      if (index % 2 === 1) choices.row();
    });
    await ctx.reply(t("broadcast-ask-audience"), { reply_markup: choices });
    // An audience nobody is in is refused before the preview, and asked again.
    let audienceKey: string | undefined;
    let count = 0;
    while (!audienceKey) {
      const pick = await next();
      const button = broadcastButtons.decode(pick.callbackQuery?.data ?? "");
      const key = button?.kind === "audience" ? button.audience : undefined;
      if (pick.callbackQuery) await pick.answerCallbackQuery();
      else await pick.reply(t("hint-use-buttons"));
      const chosen = key ? AUDIENCES[key] : undefined;
      if (!key || !chosen) continue;
      count = await conversation.external(
        async () => (await audienceOf(deps.subscribers, chosen)).length,
      );
      if (count > 0) audienceKey = key;
      else
        await pick.reply(
          t("broadcast-audience-empty", { audience: t(AUDIENCE_LABELS[key] ?? "") }),
        );
    }

    const audience = AUDIENCES[audienceKey] as Audience;
    const finalContent = content;
    await conversation.external(() => deps.previewBroadcast(chatId, locale, finalContent));
    await ctx.reply(
      t("broadcast-confirm", { count, audience: t(AUDIENCE_LABELS[audienceKey] ?? "") }),
      {
        reply_markup: new InlineKeyboard()
          .text(t("button-send"), broadcastButtons.encode({ kind: "send", token }))
          .text(t("button-cancel"), broadcastButtons.encode({ kind: "abort", token })),
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
      const button = broadcastButtons.decode(data);
      if (button?.kind === "abort") {
        await answer.reply(t("broadcast-not-sent"));
        return;
      }
      if (button?.kind === "send") break;
    }

    await conversation.external(async (outside) => {
      const recipients: Recipient[] = (await audienceOf(deps.subscribers, audience)).map((s) => ({
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
          admin: chatId,
          adminLanguage: locale,
          progressReport: String(progress.message_id),
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
