// Operators are told when the provider refuses our token or stops answering, and when it
// recovers, when customer lookups exceed their hourly budget, and when the provider balance
// expected falls below BALANCE_ALERT_BELOW or stops purchases (BALANCE_STOP_BELOW): every admin in a private chat, in their language,
// and every support group.
import type { Api } from "grammy";
import type { LookupAlarm } from "../../domain/lookup-limit.js";
import type { Log } from "../../domain/ports.js";
import type { BalanceAlarm } from "../../domain/provider-balance.js";
import type { AlertChannel, ProviderAlert } from "../../domain/provider-health.js";
import type { SubscriberStore } from "../../domain/subscribers.js";
import type { Translator } from "./i18n.js";
import { type Operators, tellOperators } from "./operators.js";

export interface AlertRecipients extends Operators {
  probeSeconds: number;
}

export class TelegramAlerts implements AlertChannel, LookupAlarm, BalanceAlarm {
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
    const { failed, total } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) => this.i18n.t(language, `alert-${alert.kind}`, variables),
    );
    this.checkTold(alert.kind, failed, total);
  }

  async budgetExceeded(budget: number): Promise<void> {
    const { failed, total } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) => this.i18n.t(language, "alert-lookup-budget", { budget }),
    );
    this.checkTold("lookup-budget", failed, total);
  }

  async balanceLow(amounts: { expected: string; below: string }): Promise<void> {
    const { failed, total } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) => this.i18n.t(language, "alert-balance-low", amounts),
    );
    this.checkTold("balance-low", failed, total);
  }

  async balanceStop(amounts: { expected: string; price: string; below: string }): Promise<void> {
    const { failed, total } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) => this.i18n.t(language, "alert-balance-stop", amounts),
    );
    this.checkTold("balance-stop", failed, total);
  }

  private checkTold(alert: string, failed: number, total: number): void {
    if (failed > 0) this.log.warn({ failed, alert }, "some operators were not alerted");
    if (failed === total && total > 0) throw new Error("no operator could be alerted");
  }
}
