import type { Api } from "grammy";

/**
 * Runs a task; if it takes longer than a moment, the chat shows "typing…" until it ends, so a
 * user waiting for a slow provider sees the bot at work. Telegram shows an action for about
 * five seconds, so it is sent again while the task lasts.
 */
export async function whileTyping<T>(
  api: Api,
  chatId: number,
  task: () => Promise<T>,
  afterMs = 1_000,
  everyMs = 4_500,
): Promise<T> {
  const typing = () => void api.sendChatAction(chatId, "typing").catch(() => undefined);
  let timer = setTimeout(function again() {
    typing();
    timer = setTimeout(again, everyMs);
  }, afterMs);
  try {
    return await task();
  } finally {
    clearTimeout(timer);
  }
}
