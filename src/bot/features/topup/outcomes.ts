// How a top-up's outcome reads in Telegram: the receipt, "nothing was charged", or why it
// failed. The domain's OutcomeTeller decides when it is told; this only says it.
import type { I18n } from "@grammyjs/i18n";
import { type Api, InlineKeyboard } from "grammy";
import type { JournalEntry } from "../../../domain/journal.js";
import type { OutcomeChannel } from "../../../domain/outcomes.js";
import type { BotContext } from "../../context.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { topupButtons } from "./callback-data.js";

export class TelegramOutcomes implements OutcomeChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: I18n<BotContext>,
    private readonly formatter: (locale: string) => ValueFormatter,
  ) {}

  /** A message in the buyer's language outside any update (progress, apologies). */
  async say(buyer: number, locale: string, key: string, variables?: Record<string, string>) {
    await this.api.sendMessage(buyer, this.i18n.t(locale, key, variables));
  }

  /** A menu offered outside any update (a purchase that must be confirmed again). */
  async sendMenu(buyer: number, text: string, keyboard: InlineKeyboard): Promise<void> {
    await this.api.sendMessage(buyer, text, { reply_markup: keyboard });
  }

  async tell(entry: JournalEntry): Promise<void> {
    const t: Translate = (key, variables) => this.i18n.t(entry.language, key, variables);
    const { text, keyboard } = this.render(entry, t);
    await this.api.sendMessage(entry.buyer, text, { reply_markup: keyboard });
  }

  private render(entry: JournalEntry, t: Translate): { text: string; keyboard?: InlineKeyboard } {
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
        .text(t("button-another"), topupButtons.encode({ kind: "another" }))
        .text(t("button-done"), topupButtons.encode({ kind: "done" }));
      return { text, keyboard };
    }
    if (entry.state === "not-charged") {
      const retry = topupButtons.encode({ kind: "retry", reference: entry.reference });
      return {
        text: t("not-charged"),
        keyboard: new InlineKeyboard().text(t("button-retry"), retry),
      };
    }
    if (entry.failure?.kind === "rejected") {
      return { text: t("purchase-rejected", { code: escapeHtml(entry.failure.code ?? "") }) };
    }
    return { text: t("provider-unavailable") };
  }
}
