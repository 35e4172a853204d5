// /language: English or Nepali, remembered for the chat. A journey under way is drawn again
// in the new language, where it was, and the chat's menu button takes the language's label.
import { Composer, InlineKeyboard } from "grammy";
import { type BotContext, LOCALES, type Locale } from "../../context.js";
import { callbackCodec } from "../../shared/callback-data.js";

const languageButtons = callbackCodec<Locale>(
  "lg",
  (locale) => [locale],
  ([locale, ...rest]) => LOCALES.find((known) => known === locale && rest.length === 0) ?? null,
);

export function createLanguage(
  showCurrentScreen: (ctx: BotContext) => Promise<void>,
  /** The chat's menu button labelled in the new language. */
  labelMenuButton: (ctx: BotContext) => Promise<void>,
): Composer<BotContext> {
  const language = new Composer<BotContext>();
  const chat = language.chatType("private");

  chat.command("language", (ctx) =>
    ctx.reply(ctx.t("language-choose"), {
      reply_markup: new InlineKeyboard()
        .text("English", languageButtons.encode("en"))
        .text("नेपाली", languageButtons.encode("ne")),
    }),
  );

  chat.callbackQuery(languageButtons.filter, async (ctx) => {
    const chosen = languageButtons.decode(ctx.callbackQuery.data);
    if (!chosen) {
      await ctx.answerCallbackQuery(ctx.t("menu-expired"));
      return;
    }
    ctx.session.language = chosen;
    await ctx.answerCallbackQuery();
    await labelMenuButton(ctx);
    await ctx.editMessageText(ctx.t("language-set"));
    await showCurrentScreen(ctx);
  });

  return language;
}
