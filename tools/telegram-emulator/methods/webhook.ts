// setWebhook, deleteWebhook and getWebhookInfo: with a webhook set, the bot's updates are
// posted to it (webhook-delivery.ts) and getUpdates is refused, as on Telegram.

import type { WebhookInfo } from "grammy/types";
import { badRequest } from "../api-error.js";
import { Webhook } from "../webhook-delivery.js";
import type { BotState } from "../world.js";
import { isStringArray } from "./bot.js";
import type { MethodCall } from "./method-call.js";

const SECRET = /^[A-Za-z0-9_-]{1,256}$/;

export function setWebhook({ world, bot, params }: MethodCall): true {
  const url = params.string("url") ?? "";
  if (url === "") return deleteWebhook({ world, bot, params } as MethodCall);
  if (!/^https?:\/\/[^/]/.test(url)) throw badRequest("bad webhook: invalid URL");
  const secret = params.string("secret_token");
  if (secret !== undefined && !SECRET.test(secret)) {
    throw badRequest("secret token contains unallowed characters");
  }
  const maxConnections = params.integer("max_connections") ?? 40;
  if (maxConnections < 1 || maxConnections > 100) {
    throw badRequest("bad webhook: max_connections must be between 1 and 100");
  }
  const allowed = params.json("allowed_updates");
  if (allowed !== undefined && !isStringArray(allowed)) {
    throw badRequest("can't parse allowed_updates JSON array");
  }
  if (allowed) bot.updates.allow(allowed);
  if (params.boolean("drop_pending_updates")) bot.updates.dropPending();
  bot.webhook?.stop();
  bot.webhook = new Webhook(
    { url, secret, maxConnections, allowedUpdates: allowed },
    bot.updates,
    world.webhookTiming,
    (delivery) => world.webhookDeliveries.push(delivery),
  );
  return true;
}

export function deleteWebhook({ bot, params }: MethodCall): true {
  bot.webhook?.stop();
  bot.webhook = undefined;
  if (params.boolean("drop_pending_updates")) bot.updates.dropPending();
  return true;
}

export function getWebhookInfo({ bot }: MethodCall): WebhookInfo {
  return webhookInfoOf(bot);
}

export function webhookInfoOf(bot: BotState): WebhookInfo {
  return (
    bot.webhook?.info() ?? {
      url: "",
      has_custom_certificate: false,
      pending_update_count: bot.updates.pendingCount,
    }
  );
}
