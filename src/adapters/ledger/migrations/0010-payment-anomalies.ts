// Payments that cannot be recorded as they came: an amount no payment can have (nothing, less
// than nothing, not a whole number of paisa), or a confirmation the ledger refuses (a check, a
// key, a money rule). Retrying such a payment changes nothing, so it is set aside here for a
// person, once per method and charge id (a repeat changes nothing), and listed in /refunds
// until a person closes it. The constraints are loose on purpose: whatever the payment system
// said must fit, so that nothing is refused here too. Only the key and the closing are held.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

export const paymentAnomalies: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
    CREATE TABLE payment_anomalies (
      id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      method             text NOT NULL,
      charge_id          text NOT NULL,
      -- No reference to purchases: the confirmation may name none, or one that does not exist.
      purchase_id        text,
      buyer              bigint,
      currency           text,
      -- In minor units as the payment system stated it, whatever it was ("0", "-5", "700.5").
      amount             text NOT NULL,
      provider_charge_id text,
      -- When the system says it was paid, when that could be read.
      paid_at            timestamptz,
      -- Why it was set aside: the impossible amount, or the ledger's refusal (SQLSTATE, constraint).
      reason             text NOT NULL,
      set_aside_at       timestamptz NOT NULL DEFAULT now(),
      closed_at          timestamptz,
      closed_by          text,
      close_note         text,
      UNIQUE (method, charge_id),
      CHECK ((closed_at IS NULL) = (closed_by IS NULL))
    )`.execute(db);
    await sql`CREATE INDEX payment_anomalies_open ON payment_anomalies (set_aside_at)
      WHERE closed_at IS NULL`.execute(db);
    await sql`CREATE INDEX payment_anomalies_by_purchase ON payment_anomalies (purchase_id)`.execute(
      db,
    );
  },
};
