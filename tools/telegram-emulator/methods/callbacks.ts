// answerCallbackQuery: each query can be answered once.

import { badRequest } from "../api-error.js";
import { characterCount } from "../formatted-text.js";
import type { MethodCall } from "./method-call.js";

const MAX_ANSWER_LENGTH = 200;

export function answerCallbackQuery({ world, bot, params }: MethodCall): true {
  const id = params.string("callback_query_id") ?? "";
  const query = bot.callbackQueries.get(id);
  if (!query || query.answered) {
    throw badRequest("query is too old and response timeout expired or query ID is invalid");
  }
  const text = params.string("text");
  if (text !== undefined && characterCount(text) > MAX_ANSWER_LENGTH) {
    throw badRequest("MESSAGE_TOO_LONG");
  }
  query.answered = true;
  world.emit({
    type: "callback-answer",
    botId: bot.id,
    chatId: query.chatId,
    answer: {
      callbackQueryId: id,
      userId: query.userId,
      chatId: query.chatId,
      messageId: query.messageId,
      text: text || undefined,
      showAlert: params.boolean("show_alert"),
      url: params.string("url"),
    },
  });
  return true;
}
