import { randomBytes } from "node:crypto";
import type { Conversation } from "@grammyjs/conversations";
import type { BotContext, FlowContext } from "../context.js";
import type { Translator } from "./i18n.js";
import type { Translate } from "./labels.js";

/** The admin's broadcast conversation; /cancel says when it is the one cancelled. */
export const BROADCAST_FLOW = "broadcast";

export type FlowConversation = Conversation<BotContext, FlowContext>;

/** A short random id for one flow: its buttons carry it, so old menus are told apart. */
export const newFlowId = () => randomBytes(5).toString("hex");

/**
 * What every conversation starts with: a translator for its language (conversations have no
 * ctx.t) and its own id, drawn once and replayed.
 */
export async function beginFlow(
  conversation: FlowConversation,
  i18n: Translator,
  locale: string,
): Promise<{ t: Translate; id: string }> {
  const t: Translate = (key, variables) => i18n.t(locale, key, variables);
  return { t, id: await conversation.external(() => newFlowId()) };
}

/**
 * The next update for a conversation. Commands, buttons that are not the flow's own, and what
 * `passesOn` names are passed on to their handlers (/cancel, /help, other menus) while the flow
 * keeps waiting.
 */
export async function nextInFlow(
  conversation: FlowConversation,
  isOwnButton: (data: string) => boolean = () => false,
  passesOn: (update: FlowContext) => boolean = () => false,
): Promise<FlowContext> {
  const update = await conversation.wait();
  const command = update.message?.text?.startsWith("/") ?? false;
  const data = update.callbackQuery?.data;
  const foreignButton = data !== undefined && !isOwnButton(data);
  if (command || foreignButton || passesOn(update)) await conversation.skip({ next: true });
  return update;
}
