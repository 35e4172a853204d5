// What /history shows: one line a top-up, as the buyer knows it from their receipt.
import { isOpen, type Purchase } from "../../../domain/purchase.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import { bouquetTitle, connectionName, type Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";

export const HISTORY_SHOWN = 10;

/** Phases a payment adds, each in its own words. */
const PAYMENT_PHASES: Partial<Record<Purchase["phase"], string>> = {
  "awaiting-payment": "history-awaiting-payment",
  "refund-due": "history-refund-due",
  refunded: "history-refunded",
};

function outcomeOf(purchase: Purchase, t: Translate): string {
  if (purchase.phase === "charged") return t("history-charged");
  const payment = PAYMENT_PHASES[purchase.phase];
  if (payment) return t(payment);
  if (isOpen(purchase)) return t("history-checking");
  return t(purchase.reason === "declined" ? "history-declined" : "history-not-charged");
}

export function historyText(purchases: Purchase[], t: Translate, fmt: ValueFormatter): string {
  if (purchases.length === 0) return t("history-none");
  const lines = purchases.slice(0, HISTORY_SHOWN).map((purchase) =>
    t("history-line", {
      date: fmt.moment(purchase.createdAt),
      connection: escapeHtml(connectionName(purchase.connection, t, 24)),
      bouquet: escapeHtml(bouquetTitle(purchase.bouquet.name, 40)),
      amount: fmt.amount(purchase.transaction?.amount ?? purchase.bouquet.price),
      txnId: purchase.transaction
        ? `<code>${escapeHtml(truncate(purchase.transaction.txnId, 40))}</code>`
        : "—",
      outcome: outcomeOf(purchase, t),
    }),
  );
  return [`<b>${t("history-title", { count: lines.length })}</b>`, ...lines].join("\n\n");
}
