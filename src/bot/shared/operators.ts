// Every operator at once: each admin in a private chat, in the language they last used, and
// every support group (groups have no language of their own: the bot's default).
import type { Api } from "grammy";
import type { SubscriberStore } from "../../domain/subscribers.js";
import { registeredLanguage } from "./i18n.js";

export interface Operators {
  adminUserIds: number[];
  supportChatIds: number[];
}

/** Sends each operator its text; returns how many of how many could not be told. */
export async function tellOperators(
  api: Api,
  subscribers: SubscriberStore,
  operators: Operators,
  text: (language: string) => string,
): Promise<{ failed: number; total: number }> {
  const chats = [
    ...operators.adminUserIds.map(
      async (id) => [id, await registeredLanguage(subscribers, id)] as const,
    ),
    ...operators.supportChatIds.map(async (id) => [id, "en"] as const),
  ];
  const sent = await Promise.allSettled(
    chats.map(async (chat) => {
      const [id, language] = await chat;
      await api.sendMessage(id, text(language));
    }),
  );
  const failed = sent.filter((result) => result.status === "rejected").length;
  return { failed, total: sent.length };
}
