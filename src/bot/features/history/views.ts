// What /history shows: one entry a top-up, as the buyer knows it from their receipt, with how
// it was paid and the payment's reference.
import type { Purchase } from "../../../domain/purchase.js";
import { type Outcome, outcomeOf } from "../../../domain/purchase-machine.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import { bouquetTitle, connectionName, type Translate } from "../../shared/labels.js";
import { shownId } from "../../shared/masking.js";
import { buyerReference, methodName } from "../../shared/method-labels.js";
import type { ValueFormatter } from "../../shared/values.js";

export const HISTORY_SHOWN = 10;

/** The machine's outcome in the buyer's words. */
const OUTCOME_KEYS: Readonly<Record<Outcome, string>> = {
  charged: "history-charged",
  declined: "history-declined",
  "not-charged": "history-not-charged",
  unpaid: "history-not-charged",
  unknown: "history-checking",
  pending: "history-checking",
  "awaiting-payment": "history-awaiting-payment",
  "refund-due": "history-refund-due",
  refunded: "history-refunded",
};

/** How it was paid, with the reference the receipt gave. */
function paymentLine(purchase: Purchase, t: Translate): string {
  const method = methodName(purchase.payment?.method, t);
  const charge = purchase.payment?.charge;
  return charge
    ? t("history-payment-paid", { method, reference: buyerReference(charge) })
    : t("history-payment", { method });
}

export function historyText(purchases: Purchase[], t: Translate, fmt: ValueFormatter): string {
  if (purchases.length === 0) return t("history-none");
  const lines = purchases.slice(0, HISTORY_SHOWN).map((purchase) => {
    const line = t("history-line", {
      date: fmt.moment(purchase.createdAt),
      connection: escapeHtml(
        connectionName(
          { ...purchase.connection, id: shownId(purchase.connection.id, purchase.proved) },
          t,
          24,
        ),
      ),
      bouquet: escapeHtml(bouquetTitle(purchase.bouquet.name, 40)),
      amount: fmt.amount(purchase.transaction?.amount ?? purchase.bouquet.price),
      txnId: purchase.transaction
        ? `<code>${escapeHtml(truncate(purchase.transaction.txnId, 40))}</code>`
        : "—",
      outcome: t(OUTCOME_KEYS[outcomeOf(purchase)]),
    });
    return [line, paymentLine(purchase, t)].join("\n");
  });
  return [`<b>${t("history-title", { count: lines.length })}</b>`, ...lines].join("\n\n");
}
