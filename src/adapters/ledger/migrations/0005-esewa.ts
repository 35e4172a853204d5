// eSewa (ePay v2) as a payment method: its purchases and payments are allowed, its
// transaction_uuid names one purchase (the pay page and the redirects find it by it), and one
// eSewa reference (ref_id) pays once. One payment per transaction_uuid is held already: it is
// the payment's charge id, unique per method (0002).
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

const METHODS = `'telegram', 'khalti', 'esewa'`;

export const esewa: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE purchases
      DROP CONSTRAINT purchases_payment_method_check,
      ADD CONSTRAINT purchases_payment_method_check
        CHECK (payment_method IN (${sql.raw(METHODS)}))`.execute(db);
    await sql`ALTER TABLE payments
      DROP CONSTRAINT payments_method_check,
      ADD CONSTRAINT payments_method_check CHECK (method IN (${sql.raw(METHODS)}))`.execute(db);
    await sql`CREATE UNIQUE INDEX purchases_by_esewa_uuid ON purchases (payment_offer)
      WHERE payment_method = 'esewa'`.execute(db);
    await sql`CREATE UNIQUE INDEX payments_one_per_esewa_ref ON payments (provider_charge_id)
      WHERE method = 'esewa' AND provider_charge_id IS NOT NULL`.execute(db);
  },
};
