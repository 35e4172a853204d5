// The Bot API methods the emulator implements. Telegram matches method names
// case-insensitively; anything else is 404 "Not Found".

import {
  acknowledge,
  deleteMyCommands,
  getMe,
  getMyCommands,
  getUpdates,
  setChatMenuButton,
  setMyCommands,
} from "./bot.js";
import { answerCallbackQuery } from "./callbacks.js";
import { getChat, getChatMember, leaveChat } from "./chats.js";
import {
  deleteMessage,
  editMessageCaption,
  editMessageReplyMarkup,
  editMessageText,
} from "./edit.js";
import type { MethodHandler } from "./method-call.js";
import { answerPreCheckoutQuery, createInvoiceLink, sendInvoice } from "./payments.js";
import {
  copyMessage,
  forwardMessage,
  sendChatAction,
  sendDocument,
  sendMessage,
  sendPhoto,
} from "./send.js";
import { deleteWebhook, getWebhookInfo, setWebhook } from "./webhook.js";

const METHODS: Record<string, MethodHandler> = {
  getMe,
  getUpdates,
  setWebhook,
  deleteWebhook,
  getWebhookInfo,
  setMyCommands,
  getMyCommands,
  deleteMyCommands,
  setMyDescription: acknowledge,
  setMyShortDescription: acknowledge,
  setChatMenuButton,
  sendMessage,
  sendPhoto,
  sendDocument,
  copyMessage,
  forwardMessage,
  sendChatAction,
  sendInvoice,
  createInvoiceLink,
  editMessageText,
  editMessageCaption,
  editMessageReplyMarkup,
  deleteMessage,
  answerCallbackQuery,
  answerPreCheckoutQuery,
  getChat,
  getChatMember,
  leaveChat,
};

const BY_LOWER_CASE_NAME = new Map(
  Object.entries(METHODS).map(([name, handler]) => [name.toLowerCase(), { name, handler }]),
);

export function findMethod(name: string): { name: string; handler: MethodHandler } | undefined {
  return BY_LOWER_CASE_NAME.get(name.toLowerCase());
}
