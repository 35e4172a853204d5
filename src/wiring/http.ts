// The HTTP listeners: the public one (Telegram's webhook, Khalti's and eSewa's pages, health and,
// behind a token, metrics) and the metrics one. Either may be off.
import { type Bot, BotError } from "grammy";
import { HttpServer, type WebhookRejection } from "../adapters/http/server.js";
import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import type { BotContext } from "../bot/context.js";
import { khaltiReturnPage } from "../bot/features/payments/khalti-return.js";
import { isPaymentConfirmation } from "../bot/shared/confirmation-hold.js";
import type { Translator } from "../bot/shared/i18n.js";
import type { ValueFormatter } from "../bot/shared/values.js";
import type { Config } from "../config.js";
import { ConfirmationNotKept } from "../domain/payment-service.js";
import { esewaPagesOf } from "./esewa.js";
import type { Payments } from "./payments.js";
import type { Stores } from "./stores.js";

/** Telegram is answered this soon at the latest; the update's handling goes on after. */
const WEBHOOK_ANSWER_MS = 3_000;

export interface HttpServers {
  /** HTTP_PORT. */
  http: HttpServer | undefined;
  /** METRICS_PORT. */
  metricsHttp: HttpServer | undefined;
}

export function createHttp(parts: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  stores: Stores;
  payments: Payments | undefined;
  bot: Bot<BotContext>;
  i18n: Translator;
  formatter: (locale: string) => ValueFormatter;
  /** Whether this instance should get traffic (/readyz). */
  ready(): boolean;
}): HttpServers {
  const { config, logger, metrics, payments, bot, ready } = parts;
  const webhook = config.webhook;
  const onRejected = (reason: WebhookRejection) => metrics.webhookRejections.inc({ reason });
  const http = config.http
    ? new HttpServer({
        ...config.http,
        webhook: webhook && {
          path: new URL(webhook.url).pathname,
          secret: webhook.secret,
          handle: async (update) => {
            try {
              await bot.handleUpdate(update as Parameters<typeof bot.handleUpdate>[0]);
            } catch (error) {
              // Kept nowhere: a 500, and Telegram delivers it again (the buyer is told then).
              if (!(error instanceof BotError) || error.error instanceof ConfirmationNotKept) {
                throw error;
              }
              // The error boundary, as the runner calls it for polled updates.
              await bot.errorHandler(error);
            }
          },
          answerWithinMs: WEBHOOK_ANSWER_MS,
          answersOnceHandled: isPaymentConfirmation,
        },
        ready,
        pages: payments
          ? [
              ...(payments.methods.includes("khalti")
                ? [
                    khaltiReturnPage(
                      parts.stores.purchases,
                      payments.service,
                      parts.i18n,
                      () => bot.botInfo.username,
                      config.returnPage.lookupIntervalMs,
                    ),
                  ]
                : []),
              ...esewaPagesOf({
                config,
                ledger: parts.stores.purchases,
                payments: payments.service,
                i18n: parts.i18n,
                formatter: parts.formatter,
                botUsername: () => bot.botInfo.username,
              }),
            ]
          : [],
        pagesPerClientPerMinute: config.returnPage.perClientPerMinute,
        // On the public port only behind the token.
        metrics: config.http.metricsToken
          ? {
              contentType: metrics.contentType,
              render: () => metrics.render(),
              token: config.http.metricsToken,
            }
          : undefined,
        onRejected,
        log: logger,
      })
    : undefined;
  const metricsHttp = config.metricsHttp
    ? new HttpServer({ ...config.metricsHttp, ready, metrics, onRejected, log: logger })
    : undefined;
  return { http, metricsHttp };
}
