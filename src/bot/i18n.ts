import { fileURLToPath } from "node:url";
import { I18n } from "@grammyjs/i18n";
import type { BotContext } from "./context.js";

export const LOCALES_DIRECTORY = fileURLToPath(new URL("../../locales", import.meta.url));

export function createI18n(): I18n<BotContext> {
  return new I18n<BotContext>({
    defaultLocale: "en",
    directory: LOCALES_DIRECTORY,
    // Provider data goes into messages as-is; it is escaped where HTML is rendered.
    fluentBundleOptions: { useIsolating: false },
  });
}
