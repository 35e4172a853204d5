// The Mini App's way in from the chat: a "🛒 Open the shop" web_app button under /start and
// /topup, and the chat's menu button; none without a Mini App (no PUBLIC_URL: chat only).
import type { InlineKeyboard } from "grammy";
import type { Translate } from "./labels.js";

/** The keyboard with the shop's button on a row of its own, when there is a shop. */
export function withShopButton(
  keyboard: InlineKeyboard,
  t: Translate,
  shopUrl: string | undefined,
): InlineKeyboard {
  return shopUrl === undefined ? keyboard : keyboard.row().webApp(t("button-open-shop"), shopUrl);
}
