import type { I18n } from "@grammyjs/i18n";
import { type Api, InlineKeyboard } from "grammy";
import type { JournalEntry } from "../domain/journal.js";
import type { BotContext } from "./context.js";
import { AFTER_ANOTHER, AFTER_DONE, encodeRetry } from "./features/topup/callback-data.js";
import { escapeHtml } from "./format/html.js";
import type { ValueFormatter } from "./format/values.js";

/**
 * Tells users how their top-ups ended, outside of any update: used by the purchase running in
 * the background and by reconciliation after a restart.
 */
export class OutcomeMessenger {
  constructor(
    private readonly api: Api,
    private readonly i18n: I18n<BotContext>,
    private readonly formatter: (locale: string) => ValueFormatter,
  ) {}

  translate(locale: string, key: string, variables?: Record<string, string | number>): string {
    return this.i18n.t(locale, key, variables);
  }

  async say(
    chatId: number,
    locale: string,
    key: string,
    variables?: Record<string, string | number>,
  ) {
    await this.api.sendMessage(chatId, this.translate(locale, key, variables), {
      parse_mode: "HTML",
    });
  }

  /** The receipt, or the plain "nothing was charged", for a settled journal entry. */
  async deliverEntry(entry: JournalEntry): Promise<void> {
    const t = (key: string, variables?: Record<string, string | number>) =>
      this.translate(entry.language, key, variables);
    if (entry.state === "done" && entry.transaction) {
      const fmt = this.formatter(entry.language);
      const text = t("receipt", {
        txnId: escapeHtml(entry.transaction.txnId),
        bouquet: escapeHtml(entry.bouquetName),
        period: t(`period-${entry.period ?? "other"}`),
        amount: fmt.amount(entry.transaction.amount),
        date: fmt.moment(entry.transaction.date),
        connection: escapeHtml(`${t(`service-${entry.service}`)} ${entry.connectionId}`),
      });
      const keyboard = new InlineKeyboard()
        .text(t("button-another"), AFTER_ANOTHER)
        .text(t("button-done"), AFTER_DONE);
      await this.api.sendMessage(entry.chatId, text, {
        parse_mode: "HTML",
        reply_markup: keyboard,
      });
      return;
    }
    if (entry.state === "not-charged") {
      const keyboard = new InlineKeyboard().text(t("button-retry"), encodeRetry(entry.reference));
      await this.api.sendMessage(entry.chatId, t("not-charged"), {
        parse_mode: "HTML",
        reply_markup: keyboard,
      });
    }
  }
}
