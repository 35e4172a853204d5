import type { Api } from "grammy";
import type { Translator } from "./shared/i18n.js";

const PRIVATE_COMMANDS = [
  "start",
  "topup",
  "history",
  "reminders",
  "forget",
  "cancel",
  "help",
  "language",
] as const;

/** The command menu of private chats, in English (the default) and in Nepali. */
export async function registerCommands(api: Api, i18n: Translator): Promise<void> {
  const scope = { type: "all_private_chats" } as const;
  for (const locale of ["en", "ne"] as const) {
    const commands = PRIVATE_COMMANDS.map((command) => ({
      command,
      description: i18n.t(locale, `command-${command}`),
    }));
    await api.setMyCommands(commands, {
      scope,
      ...(locale === "en" ? {} : { language_code: locale }),
    });
  }
}
