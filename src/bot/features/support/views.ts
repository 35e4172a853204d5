// What support staff read: customer cards, transactions and the latest top-ups, as HTML
// texts (every provider and purchase string escaped). Pure functions.
import { InlineKeyboard } from "grammy";
import { parseBouquetName } from "../../../domain/bouquet-name.js";
import type { Connection, Transaction } from "../../../domain/model.js";
import type { Purchase } from "../../../domain/purchase.js";
import { type Outcome, outcomeOf } from "../../../domain/purchase-machine.js";
import type { ConnectionDetails, CustomerDetails } from "../../../domain/support.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import {
  connectionLabel,
  statusLabel,
  subscriptionLine,
  type Translate,
} from "../../shared/labels.js";
import { methodName, methodReferences } from "../../shared/method-labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { refreshButtons } from "./callback-data.js";

/** Cards stay within a margin below Telegram's limit (shared/limits.ts). */
export const CARD_BUDGET = 4000;
/** Subscriptions listed per connection; the rest are counted. */
export const SUBSCRIPTIONS_SHOWN = 10;
/** Lines of /recent. */
export const RECENT_SHOWN = 10;

const NAME_LENGTH = 100;
const ID_LENGTH = 64;
const BOUQUET_LENGTH = 60;

const text = (value: string, max: number) => escapeHtml(truncate(value, max));

function connectionTitle(connection: Connection, t: Translate): string {
  const shown = { ...connection, id: truncate(connection.id, ID_LENGTH) };
  return `<b>${escapeHtml(connectionLabel(shown, t))}</b>`;
}

function connectionBlock(
  { connection, subscriptions }: ConnectionDetails,
  t: Translate,
  fmt: ValueFormatter,
  now: number,
): string {
  const lines = [connectionTitle(connection, t)];
  if (subscriptions === null) {
    lines.push(t("support-subscriptions-failed"));
  } else if (subscriptions.length === 0) {
    lines.push(t("subscriptions-none"));
  } else {
    for (const subscription of subscriptions.slice(0, SUBSCRIPTIONS_SHOWN)) {
      lines.push(subscriptionLine(subscription, t, fmt, now, BOUQUET_LENGTH));
    }
    const hidden = subscriptions.length - SUBSCRIPTIONS_SHOWN;
    if (hidden > 0) lines.push(t("list-more", { count: hidden }));
  }
  return lines.join("\n");
}

/**
 * The full customer card: whole name, status, every connection with its subscriptions, and
 * when it was checked. Connections that would push it over {@link CARD_BUDGET} are counted
 * ("…and N more") instead of shown.
 */
export function customerCardText(
  details: CustomerDetails,
  t: Translate,
  fmt: ValueFormatter,
  now: number,
  budget = CARD_BUDGET,
): string {
  const { customer } = details;
  const name = `${customer.firstName} ${customer.lastName}`.trim();
  const head = t("support-card-header", {
    name: text(name, NAME_LENGTH),
    cuid: text(customer.cuid, ID_LENGTH),
    status: escapeHtml(statusLabel(customer.status, t)),
  });
  const foot = t("support-checked", { time: fmt.moment(now) });
  const blocks = details.connections.map((c) => connectionBlock(c, t, fmt, now));
  if (blocks.length === 0) return [head, "", t("support-no-connections"), "", foot].join("\n");

  // Room for the longest possible "…and N more" line is kept until the last block.
  const moreRoom = t("list-more", { count: blocks.length }).length + 2;
  const parts = [head];
  let used = head.length + foot.length + 2;
  for (const [index, block] of blocks.entries()) {
    const last = index === blocks.length - 1;
    if (used + block.length + 2 + (last ? 0 : moreRoom) > budget) {
      parts.push(t("list-more", { count: blocks.length - index }));
      break;
    }
    parts.push(block);
    used += block.length + 2;
  }
  parts.push(foot);
  return parts.join("\n\n");
}

export function refreshKeyboard(refId: string, t: Translate): InlineKeyboard {
  return new InlineKeyboard().text(t("support-button-refresh"), refreshButtons.encode(refId));
}

/** The machine's outcome in the words staff know: done, pending, not charged, failed. */
const STATE_KEYS: Readonly<Record<Outcome, string>> = {
  charged: "support-state-done",
  declined: "support-state-failed",
  "not-charged": "support-state-not-charged",
  unpaid: "support-state-not-charged",
  unknown: "support-state-pending",
  pending: "support-state-pending",
  "awaiting-payment": "support-state-awaiting-payment",
  "refund-due": "support-state-refund-due",
  refunded: "support-state-refunded",
};

const stateLabel = (purchase: Purchase, t: Translate) => t(STATE_KEYS[outcomeOf(purchase)]);

function serviceConnection(service: string | null, id: string | null, t: Translate): string {
  const known = service === "tv" || service === "internet" || service === "iptv";
  const kind = known ? t(`service-${service}`) : text(service ?? "", 20);
  return `${kind} ${text(id ?? "", ID_LENGTH)}`.trim();
}

const bouquetOf = (purchase: Purchase) =>
  text(parseBouquetName(purchase.bouquet.name).displayName, BOUQUET_LENGTH);

/** How the purchase was paid: the method, and the payment's references once paid. */
function paymentLine(purchase: Purchase, t: Translate): string {
  const payment = purchase.payment;
  const method = methodName(payment?.method, t);
  const references = payment ? methodReferences(payment.method, payment.charge, t) : null;
  return references === null
    ? t("support-payment", { method })
    : t("support-payment-paid", { method, references });
}

/**
 * Labelled lines ("Order ID: …"), one Fluent key each, for the values present: what is absent
 * (no reference before a top-up was sent, no order id from an older API) is left out, never
 * shown as an empty field.
 */
function fields(t: Translate, entries: [key: string, value: string | null | undefined][]) {
  return entries
    .filter((entry): entry is [string, string] => entry[1] != null && entry[1].trim() !== "")
    .map(([key, value]) => t(`support-field-${key}`, { value }));
}

const present = (value: string | null | undefined, max: number) =>
  value == null || value.trim() === "" ? null : text(value, max);

function purchaseBlock(purchase: Purchase, t: Translate, fmt: ValueFormatter): string {
  return [
    t("support-journal-title", { state: stateLabel(purchase, t) }),
    ...fields(t, [
      ["reference", present(purchase.reference, ID_LENGTH)],
      ["checkout-id", present(purchase.checkout?.id, ID_LENGTH * 2)],
      ["customer-id", present(purchase.customer.cuid, ID_LENGTH)],
      ["connection", serviceConnection(purchase.connection.service, purchase.connection.id, t)],
      ["bouquet", bouquetOf(purchase)],
      ["amount", fmt.amount(purchase.bouquet.price)],
      ["started", fmt.moment(purchase.createdAt)],
    ]),
    paymentLine(purchase, t),
  ].join("\n");
}

/** "Through the bot: ✅ done · reference tg…", the reference only once there is one. */
function journalLine(purchase: Purchase, t: Translate): string {
  const reference = present(purchase.reference, ID_LENGTH);
  return [
    t("support-txn-journal", { state: stateLabel(purchase, t) }),
    ...(reference === null ? [] : [t("support-reference", { reference })]),
  ].join(" · ");
}

/** A transaction as the provider confirms it, with the purchase when it was made here. */
export function transactionText(
  transaction: Transaction,
  purchase: Purchase | null,
  t: Translate,
  fmt: ValueFormatter,
): string {
  const code = present(transaction.bouquetCode ?? purchase?.bouquet.code, 2 * ID_LENGTH);
  const bouquet = purchase ? [bouquetOf(purchase), code].filter(Boolean).join(" · ") : code;
  const lines = [
    t("support-txn-title"),
    ...fields(t, [
      ["txn-id", present(transaction.txnId, ID_LENGTH)],
      ["order-id", present(transaction.orderId, 2 * ID_LENGTH)],
      ["customer-id", present(transaction.cuid, ID_LENGTH)],
      ["connection", serviceConnection(transaction.service, transaction.connectionId, t)],
      ["bouquet", bouquet],
      ["amount-bold", transaction.amount === null ? null : fmt.amount(transaction.amount)],
      ["date", transaction.date ? fmt.moment(transaction.date) : null],
      ["provider-status", present(transaction.status, 30)],
    ]),
  ];
  if (purchase) lines.push("", journalLine(purchase, t), paymentLine(purchase, t));
  return lines.join("\n");
}

/** A top-up made here that the provider does not confirm (or could not be asked). */
export function purchaseOnlyText(
  purchase: Purchase,
  provider: "not-found" | "failed",
  t: Translate,
  fmt: ValueFormatter,
): string {
  const note = provider === "not-found" ? "support-txn-not-at-provider" : "support-txn-unconfirmed";
  return [purchaseBlock(purchase, t, fmt), "", t(note)].join("\n");
}

export function recentText(
  purchases: Purchase[],
  code: string | undefined,
  t: Translate,
  fmt: ValueFormatter,
): string {
  const shownCode = code === undefined ? undefined : text(code, ID_LENGTH);
  if (purchases.length === 0) {
    return shownCode === undefined
      ? t("support-recent-none")
      : t("support-recent-none-for", { code: shownCode });
  }
  const title =
    shownCode === undefined
      ? t("support-recent-title")
      : t("support-recent-title-for", { code: shownCode });
  // One line each, its parts joined as they come: a part that is absent is left out.
  const lines = purchases.slice(0, RECENT_SHOWN).map((purchase) => {
    const reference = present(purchase.reference, ID_LENGTH);
    return [
      stateLabel(purchase, t),
      fmt.amount(purchase.transaction?.amount ?? purchase.bouquet.price),
      bouquetOf(purchase),
      serviceConnection(purchase.connection.service, purchase.connection.id, t),
      t("support-recent-customer", { cuid: text(purchase.customer.cuid, ID_LENGTH) }),
      fmt.moment(purchase.createdAt),
      reference === null ? "" : `<code>${reference}</code>`,
      methodName(purchase.payment?.method, t),
    ]
      .filter((part) => part.trim() !== "")
      .join(" · ");
  });
  return [title, ...lines].join("\n");
}
