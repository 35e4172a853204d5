// The Telegram side of the domain's ports: what the bot sends outside any update (outcomes,
// reminders, broadcasts, operators' alerts), in the reader's language. Built once by the
// composition root and shared with the bot itself.
import { Api, type ApiClientOptions } from "grammy";
import type { Config } from "../config.js";
import type { Log } from "../domain/ports.js";
import type { SubscriberStore } from "../domain/subscribers.js";
import { TelegramBroadcastPorts } from "./features/broadcast/delivery.js";
import { TelegramReminders } from "./features/reminders/delivery.js";
import { appPageBuilt } from "./features/topup/app-page.js";
import { renewButton } from "./features/topup/callback-data.js";
import { TelegramOutcomes } from "./features/topup/outcomes.js";
import { TelegramAlerts } from "./shared/alerts.js";
import { configureApi } from "./shared/api.js";
import { Translator } from "./shared/i18n.js";
import { TelegramReachability } from "./shared/reachability.js";
import { ValueFormatter } from "./shared/values.js";

export interface TelegramPorts {
  /** How the Bot API is called (its root, the HTTP client): the bot's own client too. */
  client: ApiClientOptions;
  /** Whether Telegram can be reached, said in the log: every Api object of the bot's reports to it. */
  reachability: TelegramReachability;
  /** The Bot API outside updates, with the bot's retries. */
  api: Api;
  i18n: Translator;
  /** One formatter per locale, made on first use. */
  formatter(locale: string): ValueFormatter;
  outcomes: TelegramOutcomes;
  reminders: TelegramReminders;
  broadcasts: TelegramBroadcastPorts;
  alerts: TelegramAlerts;
}

export function createTelegramPorts(
  config: Config,
  subscribers: SubscriberStore,
  log: Log,
  client: ApiClientOptions,
): TelegramPorts {
  const i18n = new Translator();
  const formatters = new Map<string, ValueFormatter>();
  const formatter = (locale: string) => {
    let found = formatters.get(locale);
    if (!found) {
      found = new ValueFormatter(locale, config.provider.timeZone, config.currency);
      formatters.set(locale, found);
    }
    return found;
  };
  const reachability = new TelegramReachability(log);
  const telegramApi = (retryAttempts?: number) =>
    configureApi(new Api(config.botToken, client), reachability, retryAttempts);
  // Outside updates: outcomes and alerts with the bot's retries; broadcasts pace themselves.
  const api = telegramApi(config.telegram.retryAttempts);
  return {
    client,
    reachability,
    api,
    i18n,
    formatter,
    outcomes: new TelegramOutcomes(
      api,
      i18n,
      formatter,
      config.payment?.minorDigits,
      // The Mini App, when there is one and its page was built: "Renew in the shop".
      config.miniApp && appPageBuilt() ? config.miniApp.url : undefined,
    ),
    reminders: new TelegramReminders(api, i18n, formatter, renewButton),
    broadcasts: new TelegramBroadcastPorts(telegramApi(), i18n, formatter, log),
    alerts: new TelegramAlerts(
      api,
      i18n,
      subscribers,
      {
        adminUserIds: config.adminUserIds,
        supportChatIds: config.supportChatIds,
        probeSeconds: config.providerHealth.probeAfterMs / 1000,
        minorDigits: config.payment?.minorDigits ?? 2,
      },
      formatter,
      log,
    ),
  };
}
