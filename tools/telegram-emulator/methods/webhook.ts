// setWebhook, deleteWebhook and getWebhookInfo: with a webhook set, the bot's updates are
// posted to it (webhook-delivery.ts) and getUpdates is refused, as on Telegram. The checks
// and messages follow the Bot API server's, except that plain http URLs are accepted.

import type { WebhookInfo } from "grammy/types";
import { ApiError, badRequest } from "../api-error.js";
import { Webhook } from "../webhook-delivery.js";
import type { BotState } from "../world.js";
import { isStringArray } from "./bot.js";
import type { MethodCall } from "./method-call.js";

const SECRET_CHARACTERS = /^[A-Za-z0-9_-]*$/;
const MAX_SECRET_LENGTH = 256;
const DEFAULT_MAX_CONNECTIONS = 40;
const MAX_CONNECTIONS = 100;

export function setWebhook(call: MethodCall): true {
  const { world, bot, params } = call;
  const url = params.string("url") ?? "";
  // Telegram treats setWebhook without a URL as deleteWebhook.
  if (url === "") return deleteWebhook(call);
  if (!isHttpUrl(url)) throw badRequest("invalid webhook URL specified");
  // An empty secret_token means no secret header.
  const secret = params.string("secret_token") || undefined;
  if (secret !== undefined && secret.length > MAX_SECRET_LENGTH) {
    throw badRequest("secret token is too long");
  }
  if (secret !== undefined && !SECRET_CHARACTERS.test(secret)) {
    throw badRequest("secret token contains unallowed characters");
  }
  // Out-of-range values are clamped, not refused, as the Bot API server does.
  const maxConnections = Math.min(
    Math.max(params.integer("max_connections") ?? DEFAULT_MAX_CONNECTIONS, 1),
    MAX_CONNECTIONS,
  );
  const allowed = params.json("allowed_updates");
  if (allowed !== undefined && !isStringArray(allowed)) {
    throw badRequest("can't parse allowed_updates JSON array");
  }
  if (allowed) bot.updates.allow(allowed);
  if (params.boolean("drop_pending_updates")) bot.updates.dropPending();
  // A getUpdates still waiting would otherwise also take the updates posted to the webhook.
  bot.updates.endPoll(new ApiError(409, "Conflict: terminated by setWebhook request"));
  bot.webhook?.stop();
  bot.webhook = new Webhook(
    { url, secret, maxConnections },
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

/** Like Telegram's: allowed_updates whenever not the default, even without a webhook. */
export function webhookInfoOf(bot: BotState): WebhookInfo {
  const { webhook } = bot;
  const allowed = bot.updates.allowedTypes;
  return {
    url: webhook?.settings.url ?? "",
    has_custom_certificate: false,
    pending_update_count: bot.updates.pendingCount,
    ...(webhook && { max_connections: webhook.settings.maxConnections }),
    ...(allowed && { allowed_updates: allowed as WebhookInfo["allowed_updates"] }),
    ...(webhook?.lastError && {
      last_error_date: webhook.lastError.date,
      last_error_message: webhook.lastError.message,
    }),
  };
}

function isHttpUrl(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    return (protocol === "https:" || protocol === "http:") && hostname !== "";
  } catch {
    return false;
  }
}
