// Public entry point of the Telegram Bot API emulator.

export type { ChatUser, GroupDriver, WaitOptions } from "./driver.js";
export { createTelegramEmulator, type TelegramEmulator } from "./emulator.js";
export type { HeldCall } from "./held-calls.js";
export type { ReplyMarkup } from "./reply-markup.js";
export type * from "./types.js";
