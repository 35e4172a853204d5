// Fonepay dynamic QR as a payment method: its purchases, payments and offers are allowed, its
// prn names one purchase (the status checks and the socket's hints find it by it), and one
// Fonepay trace id pays once. One payment per prn is held already: it is the payment's charge
// id, unique per method (0002); a prn is never offered twice: payment_offers keeps every offer,
// one purchase per (method, handle) (0006).
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

const METHODS = `'telegram', 'khalti', 'esewa', 'fonepay'`;

export const fonepay: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE purchases
      DROP CONSTRAINT purchases_payment_method_check,
      ADD CONSTRAINT purchases_payment_method_check
        CHECK (payment_method IN (${sql.raw(METHODS)}))`.execute(db);
    await sql`ALTER TABLE payments
      DROP CONSTRAINT payments_method_check,
      ADD CONSTRAINT payments_method_check CHECK (method IN (${sql.raw(METHODS)}))`.execute(db);
    await sql`ALTER TABLE payment_offers
      DROP CONSTRAINT payment_offers_method_check,
      ADD CONSTRAINT payment_offers_method_check
        CHECK (method IN (${sql.raw(METHODS)}))`.execute(db);
    await sql`CREATE UNIQUE INDEX purchases_by_fonepay_prn ON purchases (payment_offer)
      WHERE payment_method = 'fonepay'`.execute(db);
    await sql`CREATE UNIQUE INDEX payments_one_per_fonepay_trace ON payments (provider_charge_id)
      WHERE method = 'fonepay' AND provider_charge_id IS NOT NULL`.execute(db);
  },
};
