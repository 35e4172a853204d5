// Purchases written straight into the ledger, for reports over many purchases, outcomes and
// days that real top-ups would take long to make.
import type { Insertable, Kysely } from "kysely";
import pg from "pg";
import type { LedgerTables, PurchaseRow } from "../../src/adapters/ledger/schema.js";

type Row = Insertable<PurchaseRow>;

const OPEN = ["created", "token-taken", "requested", "unknown"];
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
    reason: phase === "not-charged" ? "verified" : null,
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
