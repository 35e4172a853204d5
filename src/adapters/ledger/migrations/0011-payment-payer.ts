// Who paid. Telegram names the person who paid each payment (the `from` of successful_payment);
// Khalti, eSewa and Fonepay do not say (NULL). A payment pays for its purchase only when its
// payer, where known, is the purchase's buyer: one made by anyone else (a forwarded invoice
// paid by a friend) pays for nothing and is owed back to the payer, whoever writes it.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/** SQLSTATE of a payment applied to a purchase by someone other than its buyer. */
export const PAYER_NOT_BUYER = "LG011";

export const paymentPayer: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE payments ADD COLUMN payer bigint`.execute(db);
    // The purchase is read FOR SHARE, as the amount's rule reads it (0003-money-rules).
    await sql`
    CREATE FUNCTION payments_refuse_other_payer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM purchases WHERE id = NEW.purchase_id AND buyer = NEW.payer FOR SHARE;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'applied payment refused: payment % for purchase % was paid by someone other than its buyer',
          NEW.id, NEW.purchase_id USING ERRCODE = ${sql.lit(PAYER_NOT_BUYER)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER payments_applied_payer BEFORE INSERT OR UPDATE OF applied, payer, purchase_id
      ON payments
      FOR EACH ROW WHEN (NEW.applied AND NEW.payer IS NOT NULL)
      EXECUTE FUNCTION payments_refuse_other_payer()`.execute(db);
  },
};
