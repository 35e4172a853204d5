// Operators are told when the provider refuses our token or stops answering, and when it
// recovers: every admin in a private chat, in their language, and every support group.
import type { Api } from "grammy";
import type { Log } from "../../../domain/ports.js";
import type { AlertChannel, ProviderAlert } from "../../../domain/provider-health.js";
import type { SubscriberStore } from "../../../domain/subscribers.js";
import { registeredLanguage, type Translator } from "../../shared/i18n.js";

export interface AlertRecipients {
  adminUserIds: number[];
  supportChatIds: number[];
  probeSeconds: number;
}

export class TelegramAlerts implements AlertChannel {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly subscribers: SubscriberStore,
    private readonly recipients: AlertRecipients,
    private readonly log: Log,
  ) {}

  async send(alert: ProviderAlert): Promise<void> {
    const variables = {
      failures: alert.kind === "down" ? alert.failures : 0,
      probe: this.recipients.probeSeconds,
    };
    const text = (language: string) => this.i18n.t(language, `alert-${alert.kind}`, variables);
    const chats = [
      ...this.recipients.adminUserIds.map(
        async (id) => [id, await registeredLanguage(this.subscribers, id)] as const,
      ),
      // Groups have no language of their own: the bot's default.
      ...this.recipients.supportChatIds.map(async (id) => [id, "en"] as const),
    ];
    const sent = await Promise.allSettled(
      chats.map(async (chat) => {
        const [id, language] = await chat;
        await this.api.sendMessage(id, text(language));
      }),
    );
    const failed = sent.filter((result) => result.status === "rejected").length;
    if (failed > 0) this.log.warn({ failed, alert: alert.kind }, "some operators were not alerted");
    if (failed === sent.length && sent.length > 0) throw new Error("no operator could be alerted");
  }
}
