// Each payment method in words, the same in every view that names it (/report, /txn, /recent,
// /history): its name, and what its two references are called. A method is one entry of
// METHOD_TEXTS, its texts in locales/<lang>/methods.ftl.
import type { PaymentMethod } from "../../domain/purchase.js";
import type { Translate } from "./labels.js";

interface MethodTexts {
  name: string;
  /** The payment system's id of the payment (PaymentCharge.id). */
  charge: string;
  /** The other id it gives (PaymentCharge.providerId), which its statements and refunds use. */
  providerCharge: string;
}

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
} satisfies Record<string, MethodTexts>;

/** The method's name; a purchase that asked for no payment (PAYMENT_MODE=none) says so. */
export function methodName(method: PaymentMethod | null | undefined, t: Translate): string {
  return method ? t(METHOD_TEXTS[method].name) : t("method-none");
}
