// The ledger's first shape: one row per purchase with its phase, the checkout tokens each
// purchase took, and every change of phase as an event. The constraints are the money rules
// the database itself can hold: an intent is one row, a token serves one purchase, a
// reference is ours alone, one purchase is in flight per buyer.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

const PHASES = `'created', 'token-taken', 'requested', 'charged', 'not-charged', 'unknown'`;
const REASONS = `'declined', 'verified', 'unavailable', 'paused', 'interrupted', 'offer-changed'`;

export const purchases: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
    CREATE TABLE purchases (
      id                 text PRIMARY KEY,
      buyer              bigint NOT NULL,
      language           text NOT NULL,
      customer_id        text NOT NULL,
      customer_name      text NOT NULL,
      service            text NOT NULL,
      connection_id      text NOT NULL,
      bouquet_code       text NOT NULL,
      bouquet_name       text NOT NULL,
      price              numeric NOT NULL CHECK (price >= 0),
      attempt            smallint NOT NULL CHECK (attempt IN (1, 2)),
      checkout_id        text,
      checkout_issued_at timestamptz,
      reference          text UNIQUE CHECK (length(reference) <= 30),
      phase              text NOT NULL CHECK (phase IN (${sql.raw(PHASES)})),
      told               text CHECK (told IN (${sql.raw(PHASES)})),
      reason             text CHECK (reason IN (${sql.raw(REASONS)})),
      refusal_code       text,
      txn_id             text,
      txn_amount         numeric CHECK (txn_amount >= 0),
      txn_date           jsonb,
      renewed_until      jsonb,
      status_message     text,
      from_reminder      boolean NOT NULL DEFAULT false,
      created_at         timestamptz NOT NULL,
      updated_at         timestamptz NOT NULL,
      due_at             timestamptz,
      lease_owner        text,
      lease_until        timestamptz,
      CHECK ((checkout_id IS NULL) = (checkout_issued_at IS NULL)),
      CHECK (phase <> 'charged' OR txn_id IS NOT NULL),
      CHECK (phase <> 'not-charged' OR reason IS NOT NULL),
      CHECK ((phase IN ('created', 'token-taken', 'requested', 'unknown')) = (due_at IS NOT NULL))
    )`.execute(db);
    // One purchase in flight per buyer: a second one is refused by the database itself.
    await sql`
    CREATE UNIQUE INDEX purchases_one_in_flight_per_buyer ON purchases (buyer)
      WHERE phase IN ('created', 'token-taken', 'requested')`.execute(db);
    await sql`CREATE INDEX purchases_due ON purchases (due_at) WHERE due_at IS NOT NULL`.execute(
      db,
    );
    await sql`
    CREATE INDEX purchases_untold ON purchases (updated_at)
      WHERE phase IN ('charged', 'not-charged', 'unknown') AND told IS DISTINCT FROM phase`.execute(
      db,
    );
    await sql`CREATE INDEX purchases_by_time ON purchases (created_at, id)`.execute(db);
    await sql`CREATE INDEX purchases_by_buyer ON purchases (buyer, created_at)`.execute(db);
    await sql`CREATE INDEX purchases_by_txn ON purchases (txn_id)`.execute(db);
    await sql`CREATE INDEX purchases_by_customer ON purchases (lower(customer_id))`.execute(db);
    await sql`CREATE INDEX purchases_by_connection ON purchases (lower(connection_id))`.execute(db);

    // A checkout token serves one purchase, whichever attempt took it.
    await sql`
    CREATE TABLE purchase_checkouts (
      checkout_id text PRIMARY KEY,
      purchase_id text NOT NULL REFERENCES purchases (id),
      taken_at    timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX purchase_checkouts_by_purchase ON purchase_checkouts (purchase_id)`.execute(
      db,
    );

    // The audit trail: every change of phase (and every outcome told), written in the same
    // transaction as the change.
    await sql`
    CREATE TABLE purchase_events (
      id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      purchase_id text NOT NULL REFERENCES purchases (id),
      at          timestamptz NOT NULL DEFAULT clock_timestamp(),
      from_phase  text CHECK (from_phase IN (${sql.raw(PHASES)})),
      to_phase    text NOT NULL CHECK (to_phase IN (${sql.raw(PHASES)})),
      told        text CHECK (told IN (${sql.raw(PHASES)})),
      reason      text,
      actor       text NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX purchase_events_by_purchase ON purchase_events (purchase_id, id)`.execute(
      db,
    );
  },
};
