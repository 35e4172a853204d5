import type { Message } from "grammy/types";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";

/** Does `act`, then waits for the bot's next message or edit whose text matches. */
export async function expectReply(
  user: ChatUser,
  act: () => unknown,
  expected: string | RegExp,
  timeoutMs = 5_000,
): Promise<Message> {
  const reply = user.waitForText(expected, { timeoutMs });
  act();
  return reply;
}

export const buttonsOf = (user: ChatUser, message?: Message) => user.inlineButtons(message).flat();
