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
  /** The menu offering other ways to pay (migrations/0013), closed once paid or ended. */
  menu_message: ColumnType<string | null, string | null | undefined, string | null>;
  from_reminder: boolean;
  /** The buyer proved the customer theirs (migrations/0013); false: typed, or not recorded. */
  customer_proved: ColumnType<boolean, boolean | undefined, boolean>;
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
  /** Until when the current offer is payable at its system (migrations/0009). */
  payment_offer_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  payment_charge_id: string | null;
  payment_provider_charge_id: string | null;
  paid_at: ColumnType<Date | null, Date | null, Date | null>;
}

export interface PaymentRow {
  id: Generated<string>;
  purchase_id: string | null;
  buyer: ColumnType<string | null, number | null, number | null>;
  /** Who paid, where the payment system says (Telegram); NULL where it does not. */
  payer: ColumnType<string | null, number | null | undefined, number | null>;
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
  /** Part of it went back outside the bot before it paid for anything (migrations/0012). */
  outside_refund_seen_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  outside_refund_minor: ColumnType<string | null, number | null | undefined, number | null>;
  /** Why its refund through the system's API was left to a person. */
  refund_by_hand: ColumnType<string | null, string | null | undefined, string | null>;
  /** Who may call the system's refund now, and until when (migrations/0015). */
  refund_lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  refund_lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** A refund call left and no answer read yet: its outcome unknown (migrations/0015). */
  refund_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/**
 * Every offer a purchase made (migrations/0006): written by the database itself. Watched
 * (withdrawn, not closed) until its payable_until and one last look (migrations/0009).
 */
interface PaymentOfferRow {
  purchase_id: string;
  method: string;
  handle: string;
  offered_at: Generated<Date>;
  withdrawn_at: Date | null;
  next_look_at: Date | null;
  closed_at: Date | null;
  payable_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The payer's complete mobile number from Khalti's return page (migrations/0012). */
  payer_mobile: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Payments set aside for a person (migrations/0010): loose columns, one row per method and charge id. */
interface PaymentAnomalyRow {
  id: Generated<string>;
  method: string;
  charge_id: string;
  purchase_id: string | null;
  buyer: ColumnType<string | null, number | null, number | null>;
  currency: string | null;
  amount: string;
  provider_charge_id: string | null;
  paid_at: Date | null;
  reason: string;
  set_aside_at: Generated<Date>;
  closed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  closed_by: string | null;
  close_note: string | null;
  /** 'payment' (0010), or 'unsettled': an offer its system had not settled (migrations/0012). */
  kind: ColumnType<string, string | undefined, string>;
}

export interface LedgerTables {
  purchases: PurchaseRow;
  payment_anomalies: PaymentAnomalyRow;
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
