// The ledger's tables as Kysely sees them (migrations/ makes them).
import type { ColumnType, Generated } from "kysely";

/** numeric: written as exact decimal text, read back as text (never a float). */
type Decimal = ColumnType<string, string, string>;
type Time = ColumnType<Date, Date | string, Date | string>;
/** jsonb: a provider time as read ({ at, text }), or null. */
type Json = ColumnType<unknown, string | null, string | null>;

export interface PurchaseRow {
  id: string;
  /** Moves on with every write; a write names the version it read (migrations/0004). */
  version: ColumnType<number, number | undefined, number>;
  buyer: ColumnType<number | string, number, number>;
  language: string;
  customer_id: string;
  customer_name: string;
  service: string;
  connection_id: string;
  bouquet_code: string;
  bouquet_name: string;
  price: Decimal;
  attempt: number;
  checkout_id: string | null;
  checkout_issued_at: ColumnType<Date | null, Date | null, Date | null>;
  reference: string | null;
  phase: string;
  told: string | null;
  reason: string | null;
  refusal_code: string | null;
  txn_id: string | null;
  txn_amount: ColumnType<string | null, string | null, string | null>;
  txn_date: Json;
  renewed_until: Json;
  status_message: string | null;
  from_reminder: boolean;
  created_at: Time;
  updated_at: Time;
  due_at: ColumnType<Date | null, Date | null, Date | null>;
  lease_owner: string | null;
  lease_until: ColumnType<Date | null, Date | null, Date | null>;
  payment_method: string | null;
  payment_currency: string | null;
  /** bigint: read as text, written as a number (minor units are safe integers). */
  payment_minor: ColumnType<string | null, number | null, number | null>;
  payment_expires_at: ColumnType<Date | null, Date | null, Date | null>;
  payment_offer: string | null;
  payment_charge_id: string | null;
  payment_provider_charge_id: string | null;
  paid_at: ColumnType<Date | null, Date | null, Date | null>;
}

export interface PaymentRow {
  id: Generated<string>;
  purchase_id: string | null;
  buyer: ColumnType<string | null, number | null, number | null>;
  method: string;
  currency: string;
  minor: ColumnType<string, number, number>;
  charge_id: string;
  provider_charge_id: string | null;
  received_at: Generated<Date>;
  applied: boolean;
  refund: Generated<string>;
  refund_reason: string | null;
  refund_due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  refunded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  refunded_by: string | null;
  refund_note: string | null;
  refund_attempts: Generated<number>;
}

/** Every offer a purchase made (migrations/0006): written by the database itself. */
interface PaymentOfferRow {
  purchase_id: string;
  method: string;
  handle: string;
  offered_at: Generated<Date>;
  withdrawn_at: Date | null;
  next_look_at: Date | null;
  closed_at: Date | null;
}

export interface LedgerTables {
  purchases: PurchaseRow;
  payment_offers: PaymentOfferRow;
  payments: PaymentRow;
  purchase_checkouts: { checkout_id: string; purchase_id: string; taken_at: Time };
  purchase_events: {
    id: Generated<string>;
    purchase_id: string;
    at: Generated<Date>;
    from_phase: string | null;
    to_phase: string;
    told: string | null;
    reason: string | null;
    actor: string;
  };
}
