import type { Conversation } from "@grammyjs/conversations";
import type { BotContext, FlowContext } from "../context.js";

export type FlowConversation = Conversation<BotContext, FlowContext>;

/**
 * The next update for a conversation. Commands, and buttons that are not the flow's own, are
 * passed on to their handlers (/cancel, /help, other menus) while the flow keeps waiting.
 */
export async function nextInFlow(
  conversation: FlowConversation,
  ownButtons?: RegExp,
): Promise<FlowContext> {
  const update = await conversation.wait();
  const command = update.message?.text?.startsWith("/") ?? false;
  const data = update.callbackQuery?.data;
  const foreignButton = data !== undefined && !(ownButtons?.test(data) ?? false);
  if (command || foreignButton) await conversation.skip({ next: true });
  return update;
}
