// Checks of the posted form, in the order eSewa refuses: a field missing, a merchant it does not
// know, a signature that does not verify (ES104), then the amounts and the rest. Messages other
// than eSewa's published ones are the sandbox's own: nothing should depend on their wording.

import {
  esewaError,
  FORM_MUST_SIGN,
  INVALID_SIGNATURE,
  paisaOf,
  signatureMatches,
  UNKNOWN_MERCHANT,
} from "./wire.js";

const FORM_FIELDS = [
  "amount",
  "tax_amount",
  "total_amount",
  "transaction_uuid",
  "product_code",
  "product_service_charge",
  "product_delivery_charge",
  "success_url",
  "failure_url",
  "signed_field_names",
  "signature",
] as const;

const PARTS = [
  "amount",
  "tax_amount",
  "product_service_charge",
  "product_delivery_charge",
] as const;

/** What a valid form asks for. */
export interface FormOrder {
  transactionUuid: string;
  productCode: string;
  amount: string;
  taxAmount: string;
  productServiceCharge: string;
  productDeliveryCharge: string;
  totalAmount: string;
  totalPaisa: number;
  successUrl: string;
  failureUrl: string;
  fields: Record<string, string>;
}

export type CheckedForm = { ok: true; order: FormOrder } | { ok: false; body: string };

interface Merchant {
  productCode: string;
  secretKey: string;
}

/** A form body's fields; a field posted twice counts as first posted, as a servlet reads it. */
export function formFields(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (!Object.hasOwn(fields, name)) {
      Object.defineProperty(fields, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return fields;
}

const isWebUrl = (text: string) =>
  URL.canParse(text) && ["http:", "https:"].includes(new URL(text).protocol);

/** Whether the form's signature verifies, and covers what it must. */
export function signatureValid(fields: Record<string, string>, secretKey: string): boolean {
  const names = fields.signed_field_names;
  const signature = fields.signature;
  if (names === undefined || signature === undefined) return false;
  const listed = names.split(",");
  return (
    FORM_MUST_SIGN.every((name) => listed.includes(name)) &&
    signatureMatches(secretKey, fields, names, signature)
  );
}

export function checkForm(fields: Record<string, string>, merchant: Merchant): CheckedForm {
  const missing = FORM_FIELDS.filter((name) => (fields[name] ?? "").trim() === "");
  if (missing.length > 0) {
    return { ok: false, body: esewaError(0, `Required fields missing: ${missing.join(", ")}`) };
  }
  const field = (name: (typeof FORM_FIELDS)[number]) => fields[name] ?? "";
  if (field("product_code") !== merchant.productCode) return { ok: false, body: UNKNOWN_MERCHANT };
  if (!signatureValid(fields, merchant.secretKey)) return { ok: false, body: INVALID_SIGNATURE };

  const parts = PARTS.map((name) => paisaOf(field(name)));
  const totalPaisa = paisaOf(field("total_amount"));
  const errors: string[] = [];
  if (totalPaisa === undefined || parts.some((part) => part === undefined)) {
    errors.push("Amounts must be rupees with at most two decimals");
  } else if (parts.reduce<number>((sum, part) => sum + (part ?? 0), 0) !== totalPaisa) {
    errors.push("total_amount must be the sum of amount, tax_amount and the charges");
  } else if (totalPaisa === 0) {
    errors.push("total_amount must be more than zero");
  }
  if (!/^[A-Za-z0-9-]+$/.test(field("transaction_uuid"))) {
    errors.push("transaction_uuid may have letters, digits and hyphens only");
  }
  for (const name of ["success_url", "failure_url"] as const) {
    if (!isWebUrl(field(name))) errors.push(`${name} must be an http or https URL`);
  }
  if (errors.length > 0) return { ok: false, body: esewaError(0, errors.join("; ")) };
  return {
    ok: true,
    order: {
      transactionUuid: field("transaction_uuid"),
      productCode: field("product_code"),
      amount: field("amount"),
      taxAmount: field("tax_amount"),
      productServiceCharge: field("product_service_charge"),
      productDeliveryCharge: field("product_delivery_charge"),
      totalAmount: field("total_amount"),
      totalPaisa: totalPaisa ?? 0,
      successUrl: field("success_url"),
      failureUrl: field("failure_url"),
      fields: { ...fields },
    },
  };
}
