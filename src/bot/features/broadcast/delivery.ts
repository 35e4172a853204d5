import { type Api, GrammyError } from "grammy";
import type {
  BroadcastContent,
  BroadcastCounts,
  BroadcastPhase,
  BroadcastPorts,
  BroadcastRecord,
  DeliveryResult,
  Recipient,
} from "../../../domain/broadcast.js";
import type { Log } from "../../../domain/ports.js";
import type { Translator } from "../../shared/i18n.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { plansText, progressText, unsubscribeKeyboard } from "./views.js";

/** The admin's message to copy, as the domain keeps it: "<chat id>/<message id>". */
export const copyReference = (chatId: number, messageId: number) => `${chatId}/${messageId}`;

function copySource(reference: string): [chatId: number, messageId: number] {
  const [chatId, messageId] = reference.split("/").map(Number);
  return [chatId ?? 0, messageId ?? 0];
}

/**
 * Sends broadcast messages through an Api of its own, without auto-retry: flood control is
 * handled by the sender's pacing (it waits `retry_after` and tries the same recipient again).
 */
export class TelegramBroadcastPorts implements BroadcastPorts {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly formatter: (locale: string) => ValueFormatter,
    private readonly log: Log,
  ) {}

  private translate(locale: string): Translate {
    return (key, variables) => this.i18n.t(locale, key, variables);
  }

  /** Sends the content as a recipient will see it (also used for the admin's preview). */
  /** To a recipient with the unsubscribe button; as the admin's preview, with no live button. */
  async send(
    chatId: number,
    language: string,
    content: BroadcastContent,
    preview = false,
  ): Promise<void> {
    const t = this.translate(language);
    const reply_markup = preview ? undefined : unsubscribeKeyboard(t);
    if (content.kind === "copy") {
      await this.api.copyMessage(chatId, ...copySource(content.message), { reply_markup });
      return;
    }
    const text = plansText(content.service, content.groups, t, this.formatter(language));
    await this.api.sendMessage(chatId, text, { reply_markup });
  }

  async deliver(recipient: Recipient, content: BroadcastContent): Promise<DeliveryResult> {
    try {
      await this.send(recipient.id, recipient.language, content);
      return "sent";
    } catch (error) {
      if (error instanceof GrammyError) {
        if (error.error_code === 429) {
          return { retryAfterSeconds: error.parameters.retry_after ?? 1 };
        }
        if (
          error.error_code === 403 ||
          /chat not found|user is deactivated/i.test(error.description)
        ) {
          return "blocked";
        }
      }
      this.log.warn({ err: error, recipient: recipient.id }, "broadcast message not delivered");
      return "failed";
    }
  }

  async report(
    record: BroadcastRecord,
    counts: BroadcastCounts,
    phase: BroadcastPhase,
  ): Promise<void> {
    const text = progressText(counts, phase, this.translate(record.adminLanguage));
    if (phase !== "sending") {
      // The final report takes the progress message's place as a new message, so that the
      // admin is notified; a progress message too old to delete becomes the report instead.
      const removed = await this.api
        .deleteMessage(record.admin, Number(record.progressReport))
        .then(
          () => true,
          () => false,
        );
      if (!removed) {
        await this.api.editMessageText(record.admin, Number(record.progressReport), text);
        return;
      }
      await this.api.sendMessage(record.admin, text);
      return;
    }
    try {
      await this.api.editMessageText(record.admin, Number(record.progressReport), text);
    } catch (error) {
      if (error instanceof GrammyError && error.description.includes("message is not modified"))
        return;
      throw error;
    }
  }
}
