// How refunds read: the facts a person needs to refund a payment through the payment provider,
// and /refunds' list of those still owed, oldest first, with their age.
import { fromMinorUnits, type Refund } from "../../../domain/payment.js";
import type { RefundAlert } from "../../../domain/refunds.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import type { Translate } from "../../shared/labels.js";
import { methodName, refundReference } from "../../shared/method-labels.js";
import type { ValueFormatter } from "../../shared/values.js";

/** The variables of every refund text; ids escaped, never a phone number or name. */
export function refundFacts(refund: RefundAlert, fmt: ValueFormatter, digits: number) {
  return {
    purchase: escapeHtml(truncate(refund.purchaseId ?? "—", 64)),
    buyer: String(refund.buyer ?? "—"),
    amount: fmt.amount(fromMinorUnits(refund.minor, digits)),
    charge: escapeHtml(truncate(refund.chargeId, 128)),
    providerCharge: escapeHtml(truncate(refund.providerChargeId ?? "—", 128)),
    method: refund.method,
  };
}

const MAX_LISTED = 20;

export function refundsView(
  refunds: Refund[],
  t: Translate,
  fmt: ValueFormatter,
  digits: number,
  now: number,
): string {
  if (refunds.length === 0) return t("refunds-none");
  const lines = refunds.slice(0, MAX_LISTED).map((refund) =>
    t("refunds-line", {
      ...refundFacts(refund, fmt, digits),
      hours: Math.max(0, Math.floor((now - refund.dueSince) / 3_600_000)),
      paidWith: methodName(refund.method, t),
      reference: refundReference(
        refund.method,
        { id: refund.chargeId, providerId: refund.providerChargeId },
        t,
      ),
    }),
  );
  const more =
    refunds.length > MAX_LISTED ? [t("refunds-more", { count: refunds.length - MAX_LISTED })] : [];
  return [t("refunds-title", { count: refunds.length }), ...lines, ...more, t("refunds-how")].join(
    "\n\n",
  );
}
