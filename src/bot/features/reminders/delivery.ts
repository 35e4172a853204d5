// How a reminder reads in Telegram, with its Renew button; the domain's ReminderSender
// decides when and whether it is sent. Renew opens the top-up feature's journey: its button's
// data is that feature's, handed in by the composition root.
import { type Api, GrammyError, InlineKeyboard } from "grammy";
import type { ProviderTime } from "../../../domain/model.js";
import type { Reminder, ReminderChannel, ReminderDelivery } from "../../../domain/reminders.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { bouquetTitle, connectionName } from "../../shared/labels.js";
import { shownId } from "../../shared/masking.js";
import type { ValueFormatter } from "../../shared/values.js";

/** A reminder's connection as its user may see it: in full only when they proved it theirs. */
export const shownConnection = (reminder: Pick<Reminder, "connection" | "proved">) => ({
  service: reminder.connection.service,
  id: shownId(reminder.connection.id, reminder.proved),
});

export class TelegramReminders implements ReminderChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
    /** The data of a reminder's Renew button. */
    private readonly renewButton: (reminderId: string) => string,
  ) {}

  async send(reminder: Reminder, end: ProviderTime | null): Promise<ReminderDelivery> {
    const t = (key: string, variables?: Record<string, string | number>) =>
      this.i18n.t(reminder.language, key, variables);
    const fmt = this.formatter(reminder.language);
    const bouquet = escapeHtml(bouquetTitle(reminder.bouquet.name, 60));
    const connection = escapeHtml(connectionName(shownConnection(reminder), t, 40));
    const text = t("reminder-text", {
      bouquet,
      connection,
      end: fmt.moment(end ?? { at: reminder.end, text: "" }),
    });
    const renew = this.renewButton(reminder.id);
    try {
      await this.api.sendMessage(reminder.user, text, {
        reply_markup: new InlineKeyboard().text(t("reminder-renew-button", { bouquet }), renew),
      });
      return "sent";
    } catch (error) {
      // Blocked, deleted or never started: not tried again.
      if (
        error instanceof GrammyError &&
        (error.error_code === 403 || /chat not found/i.test(error.description))
      ) {
        return "blocked";
      }
      throw error;
    }
  }
}
