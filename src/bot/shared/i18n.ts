import { fileURLToPath } from "node:url";
import { I18n } from "@grammyjs/i18n";
import type { BotContext, Locale } from "../context.js";

export const LOCALES_DIRECTORY = fileURLToPath(new URL("../../../locales", import.meta.url));

/** Nepali for Nepali clients, English for everyone else. */
export function localeFromTelegram(languageCode: string | undefined): Locale {
  return languageCode?.toLowerCase().startsWith("ne") ? "ne" : "en";
}

/** The locale of this update: the chat's choice, else the client's language. */
export function localeOf(ctx: BotContext): Locale {
  return (
    (ctx.chat ? ctx.session.language : undefined) ?? localeFromTelegram(ctx.from?.language_code)
  );
}

export function createI18n(): I18n<BotContext> {
  return new I18n<BotContext>({
    defaultLocale: "en",
    directory: LOCALES_DIRECTORY,
    // Escaping is ours (HTML); Unicode isolation marks would show up in Telegram.
    fluentBundleOptions: { useIsolating: false },
    localeNegotiator: localeOf,
  });
}
