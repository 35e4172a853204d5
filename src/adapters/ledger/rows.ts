// The ledger's rows and the domain's records: a purchase to its row and back (its payment in
// the same row), and a payment row read as a refund. Kept apart from the queries so that the
// purchase store and the payment ledger map a row the same way.
import type { Kysely, Selectable, SelectQueryBuilder } from "kysely";
import type { ProviderTime, ServiceKind } from "../../domain/model.js";
import type { Refund, RefundByHand } from "../../domain/payment.js";
import type { PaymentMethod, Purchase } from "../../domain/purchase.js";
import type { LedgerTables, PaymentRow, PurchaseRow } from "./schema.js";

/** A query of purchase rows, before anything is selected (the reader selects every column). */
export type PurchaseQuery = (db: Kysely<LedgerTables>) => Rows;

// biome-ignore lint/complexity/noBannedTypes: Kysely's own type for "nothing selected yet"
type Rows = SelectQueryBuilder<LedgerTables, "purchases", {}>;

/** renewed_until keeps "not asked yet" (NULL) apart from "asked, unreadable" ({"end": null}). */
export function toRow(purchase: Purchase) {
  return {
    id: purchase.id,
    buyer: purchase.buyer,
    language: purchase.language,
    customer_id: purchase.customer.cuid,
    customer_name: purchase.customer.name,
    service: purchase.connection.service,
    connection_id: purchase.connection.id,
    bouquet_code: purchase.bouquet.code,
    bouquet_name: purchase.bouquet.name,
    price: purchase.bouquet.price,
    attempt: purchase.attempt,
    checkout_id: purchase.checkout?.id ?? null,
    checkout_issued_at: purchase.checkout ? new Date(purchase.checkout.issuedAt) : null,
    reference: purchase.reference,
    phase: purchase.phase,
    told: purchase.told,
    reason: purchase.reason,
    refusal_code: purchase.refusal?.code ?? null,
    txn_id: purchase.transaction?.txnId ?? null,
    txn_amount: purchase.transaction?.amount ?? null,
    txn_date: purchase.transaction ? JSON.stringify(purchase.transaction.date) : null,
    renewed_until:
      purchase.renewedUntil === undefined ? null : JSON.stringify({ end: purchase.renewedUntil }),
    status_message: purchase.statusMessage ?? null,
    menu_message: purchase.menuMessage ?? null,
    from_reminder: purchase.fromReminder === true,
    customer_proved: purchase.proved === true,
    created_at: new Date(purchase.createdAt),
    updated_at: new Date(purchase.updatedAt),
    ...paymentColumns(purchase.payment),
  };
}

function paymentColumns(payment: Purchase["payment"]) {
  return {
    payment_method: payment?.method ?? null,
    payment_currency: payment?.currency ?? null,
    payment_minor: payment?.minor ?? null,
    payment_expires_at: payment ? new Date(payment.expiresAt) : null,
    payment_offer: payment?.offer ?? null,
    payment_offer_until: payment?.offerUntil === undefined ? null : new Date(payment.offerUntil),
    payment_charge_id: payment?.charge?.id ?? null,
    payment_provider_charge_id: payment?.charge?.providerId ?? null,
    paid_at: payment?.charge ? new Date(payment.charge.at) : null,
  };
}

function paymentOf(row: Selectable<PurchaseRow>): Purchase["payment"] {
  if (!row.payment_method || !row.payment_currency || row.payment_minor === null) return undefined;
  return {
    method: row.payment_method as PaymentMethod,
    currency: row.payment_currency,
    minor: Number(row.payment_minor),
    expiresAt: new Date(row.payment_expires_at ?? 0).getTime(),
    ...(row.payment_offer !== null && { offer: row.payment_offer }),
    ...(row.payment_offer_until !== null && {
      offerUntil: new Date(row.payment_offer_until).getTime(),
    }),
    ...(row.payment_charge_id !== null && {
      charge: {
        id: row.payment_charge_id,
        providerId: row.payment_provider_charge_id,
        at: new Date(row.paid_at ?? 0).getTime(),
      },
    }),
  };
}

type RefundRow = Pick<
  Selectable<PaymentRow>,
  | "id"
  | "purchase_id"
  | "buyer"
  | "payer"
  | "method"
  | "currency"
  | "minor"
  | "charge_id"
  | "provider_charge_id"
  | "received_at"
  | "refund_due_at"
  | "refunded_at"
  | "refunded_by"
  | "refund_note"
  | "refund_attempts"
  | "outside_refund_seen_at"
  | "outside_refund_minor"
  | "refund_by_hand"
  | "refund_sent_at"
> & { language: string | null };

export const REFUND_COLUMNS = [
  "payments.id",
  "payments.purchase_id",
  "payments.buyer",
  "payments.payer",
  "payments.method",
  "payments.currency",
  "payments.minor",
  "payments.charge_id",
  "payments.provider_charge_id",
  "payments.received_at",
  "payments.refund_due_at",
  "payments.refunded_at",
  "payments.refunded_by",
  "payments.refund_note",
  "payments.refund_attempts",
  "payments.outside_refund_seen_at",
  "payments.outside_refund_minor",
  "payments.refund_by_hand",
  "payments.refund_sent_at",
] as const;

export function refundOf(row: RefundRow): Refund {
  return {
    paymentId: String(row.id),
    purchaseId: row.purchase_id,
    buyer: row.buyer === null ? null : Number(row.buyer),
    payer: row.payer === null ? null : Number(row.payer),
    language: row.language,
    method: row.method as PaymentMethod,
    currency: row.currency,
    minor: Number(row.minor),
    chargeId: row.charge_id,
    providerChargeId: row.provider_charge_id,
    receivedAt: new Date(row.received_at).getTime(),
    dueSince: new Date(row.refund_due_at ?? row.received_at).getTime(),
    attempts: Number(row.refund_attempts),
    ...(row.outside_refund_seen_at && {
      refundedOutside: {
        at: new Date(row.outside_refund_seen_at).getTime(),
        minor: row.outside_refund_minor === null ? null : Number(row.outside_refund_minor),
      },
    }),
    ...(row.refund_by_hand !== null && { byHand: row.refund_by_hand as RefundByHand }),
    ...(row.refund_sent_at && { sentAt: new Date(row.refund_sent_at).getTime() }),
    ...(row.refunded_at &&
      row.refunded_by && {
        done: {
          at: new Date(row.refunded_at).getTime(),
          by: row.refunded_by,
          note: row.refund_note,
        },
      }),
  };
}

export function fromRow(row: Selectable<PurchaseRow>): Purchase {
  const renewed = row.renewed_until as { end: ProviderTime | null } | null;
  return {
    id: row.id,
    version: Number(row.version),
    buyer: Number(row.buyer),
    language: row.language,
    customer: { cuid: row.customer_id, name: row.customer_name },
    connection: { service: row.service as ServiceKind, id: row.connection_id },
    bouquet: { code: row.bouquet_code, name: row.bouquet_name, price: row.price },
    attempt: row.attempt === 2 ? 2 : 1,
    checkout:
      row.checkout_id && row.checkout_issued_at
        ? { id: row.checkout_id, issuedAt: new Date(row.checkout_issued_at).getTime() }
        : null,
    reference: row.reference,
    phase: row.phase as Purchase["phase"],
    told: row.told as Purchase["told"],
    transaction:
      row.txn_id !== null
        ? {
            txnId: row.txn_id,
            amount: row.txn_amount ?? row.price,
            date: (row.txn_date as ProviderTime | null) ?? null,
          }
        : null,
    ...(renewed && { renewedUntil: renewed.end }),
    ...(row.status_message !== null && { statusMessage: row.status_message }),
    ...(row.menu_message !== null && { menuMessage: row.menu_message }),
    ...(row.from_reminder && { fromReminder: true as const }),
    ...(row.customer_proved && { proved: true as const }),
    refusal: row.refusal_code === null ? null : { code: row.refusal_code },
    reason: row.reason as Purchase["reason"],
    createdAt: new Date(row.created_at).getTime(),
    updatedAt: new Date(row.updated_at).getTime(),
    ...withPayment(paymentOf(row)),
  };
}

const withPayment = (payment: Purchase["payment"]) => (payment ? { payment } : {});
