// Who calls the Mini App's API: Telegram's initData, checked with @telegram-apps/init-data-node
// (HMAC-SHA256 keyed by the bot token, auth_date no older than the configured age). The user id
// is taken from it alone: nothing else the page sends says who the user is.
import { parse, validate } from "@telegram-apps/init-data-node";

export interface MiniAppUser {
  id: number;
  /** The user's Telegram language, as the page would guess it. */
  languageCode: string | undefined;
}

/** The user the initData was signed for, or null when it is missing, forged or too old. */
export function userOfInitData(
  initData: string | undefined,
  botToken: string,
  maxAgeSeconds: number,
): MiniAppUser | null {
  if (!initData) return null;
  try {
    validate(initData, botToken, { expiresIn: maxAgeSeconds });
    const user = parse(initData).user;
    if (!user || !Number.isSafeInteger(user.id) || user.id <= 0) return null;
    return { id: user.id, languageCode: user.language_code };
  } catch {
    return null;
  }
}
