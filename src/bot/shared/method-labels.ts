// Each payment method in words, the same in every view that names it (/report, /txn, /recent,
// /refunds, /history): its name, and what its two references are called. A method is one entry
// of METHOD_TEXTS (a PaymentMethod without one does not compile), its texts in
// locales/<lang>/methods.ftl.
import type { PaymentCharge, PaymentMethod } from "../../domain/purchase.js";
import { escapeHtml, truncate } from "./html.js";
import type { Translate } from "./labels.js";

interface MethodTexts {
  name: string;
  /** The payment system's id of the payment (PaymentCharge.id). */
  charge: string;
  /** The other id it gives (PaymentCharge.providerId), which its statements and refunds use. */
  providerCharge: string;
  /** A refund by hand names both ids (Fonepay's bank asks for the prn and the trace id). */
  refundByBoth?: true;
}

/** One of a payment's two references. */
type Reference = { which: "charge" | "providerCharge"; id: string };

const METHOD_TEXTS = {
  telegram: {
    name: "method-telegram",
    charge: "method-telegram-charge",
    providerCharge: "method-telegram-provider-charge",
  },
  // Khalti: the pidx of the web checkout, and Khalti's transaction id.
  khalti: {
    name: "method-khalti",
    charge: "method-khalti-charge",
    providerCharge: "method-khalti-provider-charge",
  },
  // eSewa ePay v2: our transaction_uuid, and eSewa's ref_id.
  esewa: {
    name: "method-esewa",
    charge: "method-esewa-charge",
    providerCharge: "method-esewa-provider-charge",
  },
  // Fonepay dynamic QR: our prn, and Fonepay's trace id.
  fonepay: {
    name: "method-fonepay",
    charge: "method-fonepay-charge",
    providerCharge: "method-fonepay-provider-charge",
    refundByBoth: true,
  },
} satisfies Record<string, MethodTexts>;

/** References are ids: shown whole up to this length. */
const REFERENCE_LENGTH = 128;

/** The method's name; a purchase that asked for no payment (PAYMENT_MODE=none) says so. */
export function methodName(method: PaymentMethod | null | undefined, t: Translate): string {
  return method ? t(METHOD_TEXTS[method].name) : t("method-none");
}

/** One of a payment's references, named as its system names it (HTML). */
function named(method: PaymentMethod, which: Reference["which"], id: string, t: Translate) {
  return `${t(METHOD_TEXTS[method][which])} <code>${escapeHtml(truncate(id, REFERENCE_LENGTH))}</code>`;
}

/**
 * A payment's references (HTML): "pidx <code>…</code> · Khalti transaction <code>…</code>";
 * null before it is paid.
 */
export function methodReferences(
  method: PaymentMethod,
  charge: Pick<PaymentCharge, "id" | "providerId"> | undefined,
  t: Translate,
): string | null {
  if (charge === undefined) return null;
  const references = [named(method, "charge", charge.id, t)];
  if (charge.providerId !== null) {
    references.push(named(method, "providerCharge", charge.providerId, t));
  }
  return references.join(" · ");
}

/**
 * The id a payment is known by outside the bot: the acquirer's or wallet's (Telegram's provider
 * charge, Khalti's transaction, eSewa's ref_id, Fonepay's trace id), which statements show and refunds go by, when
 * the system gave one; else the system's own.
 */
const outside = (charge: Pick<PaymentCharge, "id" | "providerId">): Reference =>
  charge.providerId === null
    ? { which: "charge", id: charge.id }
    : { which: "providerCharge", id: charge.providerId };

/** The reference a person refunds a payment by (HTML), named; both where its system needs both. */
export function refundReference(
  method: PaymentMethod,
  charge: Pick<PaymentCharge, "id" | "providerId">,
  t: Translate,
): string {
  const texts: MethodTexts = METHOD_TEXTS[method];
  if (texts.refundByBoth) return methodReferences(method, charge, t) ?? "";
  const { which, id } = outside(charge);
  return named(method, which, id, t);
}

/** The one reference a buyer quotes (HTML), as their receipt gives it. */
export const buyerReference = (charge: Pick<PaymentCharge, "id" | "providerId">) =>
  `<code>${escapeHtml(truncate(outside(charge).id, 64))}</code>`;
