// The Cancel button under an invoice: the purchase it withdraws.
import { callbackCodec } from "../../shared/callback-data.js";

export interface InvoiceButton {
  kind: "cancel";
  purchaseId: string;
}

export const invoiceButtons = callbackCodec<InvoiceButton>(
  "pay",
  (button) => ["x", button.purchaseId],
  ([op, purchaseId, ...rest]) =>
    op === "x" && purchaseId !== undefined && rest.length === 0
      ? { kind: "cancel", purchaseId }
      : null,
);
