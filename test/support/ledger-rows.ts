// Purchases (and their payments) written straight into the ledger, for reports over many
// purchases, outcomes and days that real top-ups would take long to make.
import type { Insertable, Kysely } from "kysely";
import pg from "pg";
import type { LedgerTables, PaymentRow, PurchaseRow } from "../../src/adapters/ledger/schema.js";
import { toMinorUnits } from "../../src/domain/payment.js";

type Row = Insertable<PurchaseRow>;
type Payment = Insertable<PaymentRow>;

const OPEN = ["created", "token-taken", "requested", "unknown", "awaiting-payment", "paid"];
let sequence = 0;

/**
 * A purchase row (charged unless told), consistent with the ledger's constraints. An open one
 * is leased for an hour and a settled one marked told, so that a running bot leaves them be.
 */
export function ledgerRow(overrides: Partial<Row> & Pick<Row, "created_at">): Row {
  sequence += 1;
  const phase = overrides.phase ?? "charged";
  const open = OPEN.includes(phase);
  const charged = phase === "charged";
  return {
    id: `test-${sequence}`,
    buyer: 1_000 + sequence,
    language: "en",
    customer_id: "1000001",
    customer_name: "Ram Thapa",
    service: "tv",
    connection_id: "8000000011",
    bouquet_code: "TV-GOLD-M",
    bouquet_name: "Gold (MONTHLY)",
    price: "700",
    attempt: 1,
    checkout_id: null,
    checkout_issued_at: null,
    reference: `ref-${sequence}`,
    phase,
    told: open ? null : phase,
    reason: phase === "not-charged" ? "verified" : phase === "unpaid" ? "expired" : null,
    refusal_code: null,
    txn_id: charged ? `TXN-T${sequence}` : null,
    txn_amount: charged ? (overrides.price ?? "700") : null,
    txn_date: null,
    renewed_until: null,
    status_message: null,
    from_reminder: false,
    updated_at: overrides.created_at,
    due_at: open ? new Date(Date.now() + 3_600_000) : null,
    lease_owner: open ? "test" : null,
    lease_until: open ? new Date(Date.now() + 3_600_000) : null,
    ...overrides,
  };
}

export async function insertRows(db: Kysely<LedgerTables>, rows: Row[]): Promise<void> {
  await db.insertInto("purchases").values(rows).execute();
}

/**
 * A purchase that asked for a payment in the bot (NPR, PAYMENT_MODE=telegram), charged unless
 * told: paid at its creation, unless it still waits for its payment or went unpaid.
 */
export function paidLedgerRow(overrides: Partial<Row> & Pick<Row, "created_at">): Row {
  const row = ledgerRow(overrides);
  const unpaid = row.phase === "awaiting-payment" || row.phase === "unpaid";
  return {
    ...row,
    payment_method: "telegram",
    payment_currency: "NPR",
    payment_minor: toMinorUnits(row.price, 2),
    payment_expires_at: new Date(new Date(row.created_at).getTime() + 900_000),
    payment_charge_id: unpaid ? null : `charge-${row.id}`,
    payment_provider_charge_id: unpaid ? null : `provider-${row.id}`,
    paid_at: unpaid ? null : new Date(row.created_at),
    ...overrides,
  };
}

/** The payment that paid for a paid purchase row, owed back or refunded as its phase says. */
export function paymentOf(purchase: Row, overrides: Partial<Payment> = {}): Payment {
  const refund =
    purchase.phase === "refund-due" ? "due" : purchase.phase === "refunded" ? "refunded" : "none";
  const at = new Date(purchase.updated_at);
  return {
    purchase_id: purchase.id,
    buyer: purchase.buyer,
    method: "telegram",
    currency: purchase.payment_currency ?? "NPR",
    minor: purchase.payment_minor ?? 0,
    charge_id: purchase.payment_charge_id ?? `charge-${purchase.id}`,
    provider_charge_id: purchase.payment_provider_charge_id ?? null,
    received_at: purchase.paid_at ?? at,
    applied: true,
    refund,
    refund_reason: refund === "none" ? null : "declined",
    refund_due_at: refund === "none" ? null : at,
    refunded_at: refund === "refunded" ? at : null,
    refunded_by: refund === "refunded" ? "admin:1" : null,
    ...overrides,
  };
}

/** A payment that paid for nothing (paid twice, or for no purchase known): owed back at once. */
export function strayPayment(
  overrides: Partial<Payment> & Pick<Payment, "received_at" | "minor">,
): Payment {
  sequence += 1;
  return {
    purchase_id: null,
    buyer: null,
    method: "telegram",
    currency: "NPR",
    charge_id: `stray-${sequence}`,
    provider_charge_id: `provider-stray-${sequence}`,
    applied: false,
    refund: "due",
    refund_reason: "stray",
    refund_due_at: overrides.received_at,
    ...overrides,
  };
}

export async function insertPayments(db: Kysely<LedgerTables>, rows: Payment[]): Promise<void> {
  await db.insertInto("payments").values(rows).execute();
}

/** A buyer's purchases as the ledger has them, oldest first. */
export async function purchasesOf(databaseUrl: string, buyer: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT id, phase, told FROM purchases WHERE buyer = $1 ORDER BY created_at",
      [buyer],
    );
    return rows as { id: string; phase: string; told: string | null }[];
  } finally {
    await client.end();
  }
}

/**
 * A buyer's purchases once each outcome's telling is recorded: the receipt goes out first and
 * "told" is written just after it, so a test that saw the receipt waits for that write (a few
 * seconds at most), then reads.
 */
export async function toldPurchasesOf(databaseUrl: string, buyer: number) {
  let rows = await purchasesOf(databaseUrl, buyer);
  const deadline = Date.now() + 3_000;
  while (rows.some((row) => row.phase === "charged" && row.told !== row.phase)) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
    rows = await purchasesOf(databaseUrl, buyer);
  }
  return rows;
}

/** The payments recorded for a purchase: who paid, whether it paid for it, its refund. */
export async function paymentsOf(databaseUrl: string, purchaseId: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT payer::int, buyer::int, applied, refund FROM payments WHERE purchase_id = $1 ORDER BY id",
      [purchaseId],
    );
    return rows as {
      payer: number | null;
      buyer: number | null;
      applied: boolean;
      refund: string;
    }[];
  } finally {
    await client.end();
  }
}
