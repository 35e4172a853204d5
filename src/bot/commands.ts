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

/** What an admin's private chat with the bot lists besides. */
const ADMIN_COMMANDS = [
  "report",
  "broadcast",
  "plans",
  "broadcast_cancel",
  "reminder_stats",
  "balance",
  "reconcile",
  "resolve",
] as const;

/**
 * The command menu of private chats, in English (the default) and in Nepali; an admin's own
 * chat lists the admin commands too.
 */
export async function registerCommands(
  api: Api,
  i18n: Translator,
  admins: readonly number[],
): Promise<void> {
  let failed = 0;
  for (const locale of ["en", "ne"] as const) {
    const language = locale === "en" ? {} : { language_code: locale };
    const describe = (command: string) => ({
      command,
      description: i18n.t(locale, `command-${command}`),
    });
    await api.setMyCommands(PRIVATE_COMMANDS.map(describe), {
      scope: { type: "all_private_chats" },
      ...language,
    });
    // One admin's chat Telegram does not know yet (never started) leaves the others theirs.
    const set = await Promise.allSettled(
      admins.map((admin) =>
        api.setMyCommands([...PRIVATE_COMMANDS, ...ADMIN_COMMANDS].map(describe), {
          scope: { type: "chat", chat_id: admin },
          ...language,
        }),
      ),
    );
    failed += set.filter((result) => result.status === "rejected").length;
  }
  if (failed > 0) throw new Error(`the admin command menu was not set ${failed} times`);
}
