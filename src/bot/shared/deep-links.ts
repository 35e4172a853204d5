// Links into the bot's chat (t.me/<bot>, and t.me/<bot>?start=<parameter>): what makes one and
// /start share it.

/**
 * The bot's chat in Telegram, under TELEGRAM_LINK_ROOT (t.me; the playground's own page in the
 * playground): where the payment pages' "Back to Telegram" leads.
 */
export const botChatLink = (root: string, username: string) =>
  `${root}/${encodeURIComponent(username)}`;

/**
 * Every invoice's start_parameter. Telegram forwards an invoice that has one with a button that
 * opens the bot with it, instead of a Pay button that anyone the copy reaches could tap: only
 * the buyer pays for their purchase (and /start says so to whoever opens it).
 */
export const FORWARDED_INVOICE = "forwarded-invoice";
