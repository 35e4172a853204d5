// The buttons under an invoice or a payment link: Cancel (the purchase it withdraws) and, for
// a payment system that must be asked, "I have paid" (look it up now).
import { callbackCodec } from "../../shared/callback-data.js";

export interface InvoiceButton {
  kind: "cancel" | "check";
  purchaseId: string;
}

const OPS = { x: "cancel", c: "check" } as const;

export const invoiceButtons = callbackCodec<InvoiceButton>(
  "pay",
  (button) => [button.kind === "cancel" ? "x" : "c", button.purchaseId],
  ([op, purchaseId, ...rest]) => {
    const kind = OPS[op as keyof typeof OPS];
    return kind && purchaseId !== undefined && rest.length === 0 ? { kind, purchaseId } : null;
  },
);
