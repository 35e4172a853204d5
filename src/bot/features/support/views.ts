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

function purchaseBlock(purchase: Purchase, t: Translate, fmt: ValueFormatter): string {
  const entry = t("support-journal-entry", {
    state: stateLabel(purchase, t),
    reference: text(purchase.reference ?? "", ID_LENGTH),
    checkoutId: text(purchase.checkout?.id ?? "", ID_LENGTH * 2),
    cuid: text(purchase.customer.cuid, ID_LENGTH),
    connection: serviceConnection(purchase.connection.service, purchase.connection.id, t),
    bouquet: bouquetOf(purchase),
    amount: fmt.amount(purchase.bouquet.price),
    time: fmt.moment(purchase.createdAt),
  });
  return [entry, paymentLine(purchase, t)].join("\n");
}

/** A transaction as the provider confirms it, with the purchase when it was made here. */
export function transactionText(
  transaction: Transaction,
  purchase: Purchase | null,
  t: Translate,
  fmt: ValueFormatter,
): string {
  const code = text(transaction.bouquetCode ?? purchase?.bouquet.code ?? "", 2 * ID_LENGTH);
  const lines = [
    t("support-txn-details", {
      txnId: text(transaction.txnId, ID_LENGTH),
      orderId: text(transaction.orderId ?? "", 2 * ID_LENGTH),
      cuid: text(transaction.cuid ?? "", ID_LENGTH),
      connection: serviceConnection(transaction.service, transaction.connectionId, t),
      bouquet: purchase ? `${bouquetOf(purchase)} · ${code}` : code,
      amount: transaction.amount === null ? "?" : fmt.amount(transaction.amount),
      date: transaction.date ? fmt.moment(transaction.date) : "?",
      status: text(transaction.status ?? "", 30),
    }),
  ];
  if (purchase) {
    lines.push(
      "",
      t("support-txn-journal", {
        state: stateLabel(purchase, t),
        reference: text(purchase.reference ?? "", ID_LENGTH),
      }),
      paymentLine(purchase, t),
    );
  }
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
  const lines = purchases.slice(0, RECENT_SHOWN).map((purchase) =>
    t("support-recent-line", {
      state: stateLabel(purchase, t),
      amount: fmt.amount(purchase.transaction?.amount ?? purchase.bouquet.price),
      bouquet: bouquetOf(purchase),
      connection: serviceConnection(purchase.connection.service, purchase.connection.id, t),
      cuid: text(purchase.customer.cuid, ID_LENGTH),
      time: fmt.moment(purchase.createdAt),
      reference: text(purchase.reference ?? "", ID_LENGTH),
      method: methodName(purchase.payment?.method, t),
    }),
  );
  return [title, ...lines].join("\n");
}
