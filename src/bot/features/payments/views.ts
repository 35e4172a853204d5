// How refunds read: the facts a person needs to refund a payment through the payment provider,
// and /refunds' list of those still owed, oldest first, with their age (and, where it applies,
// that part went back outside the bot, why the bot left it to a person, or that a refund call
// is out and its outcome still being found out); those the bot is still refunding through an
// API under a heading of their own ("do not refund by hand"); then, under a
// heading of their own, the payments set aside for a person to check and the offers still
// unsettled at their payment system. Every reference printed is one /refunded takes.
import { fromMinorUnits, type Refund, type SetAside } from "../../../domain/payment.js";
import type { RefundAlert } from "../../../domain/refunds.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import type { Translate } from "../../shared/labels.js";
import { methodName, refundReference } from "../../shared/method-labels.js";
import type { ValueFormatter } from "../../shared/values.js";

/** The variables of every refund text; ids escaped, never a phone number or name. */
export function refundFacts(refund: RefundAlert, fmt: ValueFormatter, digits: number) {
  return {
    purchase: escapeHtml(truncate(refund.purchaseId ?? "—", 64)),
    // Whose money it is: the payer, where the system names one (someone else's invoice paid).
    buyer: String(refund.payer ?? refund.buyer ?? "—"),
    amount: fmt.amount(fromMinorUnits(refund.minor, digits)),
    charge: escapeHtml(truncate(refund.chargeId, 128)),
    providerCharge: escapeHtml(truncate(refund.providerChargeId ?? "—", 128)),
    method: refund.method,
    // Part of it went back outside the bot before: what is owed is the rest.
    part: refund.refundedOutside ? "yes" : "no",
    // Why the bot left it to a person (refund-failed-alert).
    why: refund.byHand ?? "failed",
  };
}

const idText = (text: string | null) => escapeHtml(truncate(text ?? "—", 128));

/** The variables of every text about a payment set aside: ids and amounts, never a name. */
export function setAsideFacts(payment: SetAside) {
  return {
    purchase: idText(payment.purchaseId),
    buyer: String(payment.buyer ?? "—"),
    method: escapeHtml(truncate(payment.method, 40)),
    amount: escapeHtml(truncate(payment.amount, 40)),
    currency: escapeHtml(truncate(payment.currency ?? "—", 40)),
    charge: idText(payment.chargeId),
    providerCharge: idText(payment.providerChargeId),
    reason: escapeHtml(truncate(payment.reason, 300)),
  };
}

const MAX_LISTED = 20;

/**
 * /refunds' first part: the refunds a person makes, then, under a heading of their own, those
 * the bot is still making through a payment system's API (`automatic`): a person who refunded
 * one of those too would pay the buyer twice.
 */
export function refundsView(
  refunds: Refund[],
  t: Translate,
  fmt: ValueFormatter,
  digits: number,
  now: number,
  automatic: (refund: Refund) => boolean = () => false,
): string {
  if (refunds.length === 0) return t("refunds-none");
  const line = (refund: Refund) => {
    const facts = refundFacts(refund, fmt, digits);
    const first = t("refunds-line", {
      ...facts,
      hours: Math.max(0, Math.floor((now - refund.dueSince) / 3_600_000)),
      paidWith: methodName(refund.method, t),
      reference: refundReference(
        refund.method,
        { id: refund.chargeId, providerId: refund.providerChargeId },
        t,
      ),
    });
    const notes = [
      ...(refund.refundedOutside ? [t("refunds-part-refunded", facts)] : []),
      ...(refund.byHand ? [t("refunds-by-hand", facts)] : []),
      // A call out with its answer lost: refunding by hand now could refund twice.
      ...(refund.sentAt !== undefined && !refund.byHand
        ? [t("refunds-sent-unknown", { paidWith: methodName(refund.method, t) })]
        : []),
    ];
    return [first, ...notes].join("\n");
  };
  const listed = (some: Refund[]) => [
    ...some.slice(0, MAX_LISTED).map(line),
    ...(some.length > MAX_LISTED ? [t("refunds-more", { count: some.length - MAX_LISTED })] : []),
  ];
  const byBot = refunds.filter(automatic);
  const byHand = refunds.filter((refund) => !automatic(refund));
  return [
    ...(byHand.length > 0
      ? [t("refunds-title", { count: byHand.length }), ...listed(byHand), t("refunds-how")]
      : []),
    ...(byBot.length > 0
      ? [t("refunds-automatic-title", { count: byBot.length }), ...listed(byBot)]
      : []),
  ].join("\n\n");
}

const MAX_SET_ASIDE = 10;

/**
 * /refunds' second part: payments set aside and not closed, oldest first, with their age; an
 * offer still unsettled at its payment system reads as such (the bot still asks about it).
 */
export function setAsideView(payments: SetAside[], t: Translate, now: number): string {
  const lines = payments.slice(0, MAX_SET_ASIDE).map((payment) =>
    t(payment.kind === "unsettled" ? "unsettled-line" : "set-aside-line", {
      ...setAsideFacts(payment),
      hours: Math.max(0, Math.floor((now - payment.setAsideAt) / 3_600_000)),
    }),
  );
  const more =
    payments.length > MAX_SET_ASIDE
      ? [t("refunds-more", { count: payments.length - MAX_SET_ASIDE })]
      : [];
  return [
    t("set-aside-title", { count: payments.length }),
    ...lines,
    ...more,
    t("set-aside-how"),
  ].join("\n\n");
}
