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
import type { ValueFormatter } from "./values.js";

export interface AlertRecipients extends Operators {
  probeSeconds: number;
  /** Digits of the currency's minor unit: the balance's amounts are counted in them. */
  minorDigits: number;
}

export class TelegramAlerts implements AlertChannel, LookupAlarm, BalanceAlarm {
  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    private readonly subscribers: SubscriberStore,
    private readonly recipients: AlertRecipients,
    private readonly formatter: (locale: string) => ValueFormatter,
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

  async balanceLow(amounts: { expectedMinor: bigint; belowMinor: bigint }): Promise<void> {
    const { failed, total } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) => this.i18n.t(language, "alert-balance-low", this.money(language, amounts)),
    );
    this.checkTold("balance-low", failed, total);
  }

  async balanceStop(amounts: {
    expectedMinor: bigint;
    priceMinor: bigint;
    belowMinor: bigint;
  }): Promise<void> {
    const { failed, total } = await tellOperators(
      this.api,
      this.subscribers,
      this.recipients,
      (language) => this.i18n.t(language, "alert-balance-stop", this.money(language, amounts)),
    );
    this.checkTold("balance-stop", failed, total);
  }

  /** { expectedMinor: 250n } → { expected: "NPR 2.50" }, in the reader's words. */
  private money(language: string, amounts: Record<string, bigint>): Record<string, string> {
    const fmt = this.formatter(language);
    return Object.fromEntries(
      Object.entries(amounts).map(([name, minor]) => [
        name.replace(/Minor$/, ""),
        fmt.minor(minor, this.recipients.minorDigits),
      ]),
    );
  }

  private checkTold(alert: string, failed: number, total: number): void {
    if (failed > 0) this.log.warn({ failed, alert }, "some operators were not alerted");
    if (failed === total && total > 0) throw new Error("no operator could be alerted");
  }
}
