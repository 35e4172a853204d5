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

/** The part of the plugin's Fluent instance that picks the bundles for a locale. */
interface BundleMatcher {
  matchBundles(locales: string[]): unknown;
}

export function createI18n(): I18n<BotContext> {
  const i18n = new I18n<BotContext>({
    defaultLocale: "en",
    directory: LOCALES_DIRECTORY,
    // Escaping is ours (HTML); Unicode isolation marks would show up in Telegram.
    fluentBundleOptions: { useIsolating: false },
    localeNegotiator: localeOf,
  });
  // The plugin negotiates the language again on every ctx.t call (about fifteen per update);
  // the answer for a locale never changes, so it is worked out once per locale.
  const fluent = i18n.fluent as unknown as BundleMatcher;
  const negotiate = fluent.matchBundles.bind(fluent);
  const matched = new Map<string, unknown>();
  fluent.matchBundles = (locales) => {
    const key = locales.join(",");
    if (!matched.has(key)) matched.set(key, negotiate(locales));
    return matched.get(key);
  };
  return i18n;
}
