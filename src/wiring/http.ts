// The HTTP listeners: the public one (Telegram's webhook, Khalti's and eSewa's pages, health and,
// behind a token, metrics) and the metrics one. Either may be off.
import { type Bot, BotError } from "grammy";
import { ClientLimit } from "../adapters/http/client-limit.js";
import { userOfInitData } from "../adapters/http/init-data.js";
import { HttpServer, type WebhookRejection } from "../adapters/http/server.js";
import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import { FLOOD_WINDOW_MS } from "../bot/bot.js";
import type { BotContext } from "../bot/context.js";
import type { BotDeps } from "../bot/deps.js";
import { HISTORY_SHOWN } from "../bot/features/history/views.js";
import { TelegramInvoices } from "../bot/features/payments/invoices.js";
import { khaltiReturnPage } from "../bot/features/payments/khalti-return.js";
import { PAGE_STYLESHEET } from "../bot/features/payments/page-style.js";
import { createAppApi } from "../bot/features/topup/app-api.js";
import { appPageRoutes } from "../bot/features/topup/app-page.js";
import { isPaymentConfirmation } from "../bot/shared/confirmation-hold.js";
import { botChatLink } from "../bot/shared/deep-links.js";
import type { Translator } from "../bot/shared/i18n.js";
import type { ValueFormatter } from "../bot/shared/values.js";
import { type Config, MINI_APP_PATH } from "../config.js";
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
  /** What the bot's features were handed: the Mini App's API calls the same. */
  deps: BotDeps;
  i18n: Translator;
  formatter: (locale: string) => ValueFormatter;
  /** Whether this instance should get traffic (/readyz). */
  ready(): boolean;
}): HttpServers {
  const { config, logger, metrics, payments, bot, ready } = parts;
  const webhook = config.webhook;
  const onRejected = (reason: WebhookRejection) => metrics.webhookRejections.inc({ reason });
  const chatLink = () => botChatLink(config.telegramLinkRoot, bot.botInfo.username);
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
        api: shopApiOf(config, parts.deps, payments, bot),
        assets: appPageOf(config, parts.i18n, logger),
        pages: payments
          ? [
              ...(payments.methods.includes("khalti")
                ? [
                    khaltiReturnPage(
                      parts.stores.purchases,
                      payments.service,
                      parts.i18n,
                      parts.formatter,
                      chatLink,
                    ),
                  ]
                : []),
              ...esewaPagesOf({
                config,
                ledger: parts.stores.purchases,
                payments: payments.service,
                i18n: parts.i18n,
                formatter: parts.formatter,
                chatLink,
              }),
            ]
          : [],
        stylesheet: payments ? PAGE_STYLESHEET : undefined,
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

/** The Mini App's API under PUBLIC_URL/app/api/, when there is a Mini App at all. */
function shopApiOf(
  config: Config,
  deps: BotDeps,
  payments: Payments | undefined,
  bot: Bot<BotContext>,
) {
  const miniApp = config.miniApp;
  if (!miniApp) return undefined;
  const card = config.payment?.methods.find((settings) => settings.method === "telegram");
  const invoices =
    card && new TelegramInvoices(bot.api, card.providerToken, deps.i18n, deps.formatter);
  // Per user, as the chat's FLOOD_LIMIT counts a user's updates.
  const calls = new ClientLimit(config.limits.updatesPerWindow, Date.now, FLOOD_WINDOW_MS);
  const api = createAppApi({
    deps,
    userOf: (initData) => userOfInitData(initData, config.botToken, miniApp.authMaxAgeSeconds),
    takeCall: (user) => calls.take(String(user)),
    invoiceLink: invoices && ((purchase, payment) => invoices.link(purchase, payment)),
    shownLink: (purchaseId) => payments?.links.take(purchaseId),
    ...(payments && { awaitShown: (purchaseId: string) => payments.links.awaitShown(purchaseId) }),
    historyShown: HISTORY_SHOWN,
  });
  return { path: `${MINI_APP_PATH}/api/`, handle: api.handle };
}

/** The Mini App's page at PUBLIC_URL/app/, when there is a Mini App and its page was built. */
function appPageOf(config: Config, i18n: Translator, logger: Logger) {
  if (!config.miniApp) return [];
  const routes = appPageRoutes(MINI_APP_PATH, i18n, config.miniApp.url);
  if (!routes) logger.warn("the Mini App's page is not built: run npm run build:webapp");
  return routes ?? [];
}
