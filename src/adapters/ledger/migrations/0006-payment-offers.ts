// Several payment methods at once: a buyer may choose another method before paying, and the
// offer withdrawn then may still be paid (a Khalti link open in a browser, an invoice paid as it
// was deleted). Every offer a purchase made is kept here, so that such a payment still finds its
// purchase: topped up when nothing else paid it, owed back when something did. The database
// records the offers itself, from the purchase's current one (payment_method, payment_offer),
// whoever writes it, and holds the rules: an offer's handle names one purchase (Telegram's, a
// message id, is unique only within its chat), and a payment pays for a purchase only by a
// method the purchase was offered with.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/** SQLSTATE of a payment applied by a method its purchase was never offered with. */
const PAYMENT_NOT_OFFERED = "LG003";

export const paymentOffers: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`LOCK TABLE purchases, payments IN SHARE ROW EXCLUSIVE MODE`.execute(db);
    await sql`
    CREATE TABLE payment_offers (
      purchase_id  text NOT NULL REFERENCES purchases (id),
      method       text NOT NULL CHECK (method IN ('telegram', 'khalti', 'esewa')),
      handle       text NOT NULL,
      offered_at   timestamptz NOT NULL DEFAULT now(),
      -- Another offer became the purchase's current one (a switch of method, or a payment on it).
      withdrawn_at timestamptz,
      -- A withdrawn offer of a system that must be asked: looked up then, until closed.
      next_look_at timestamptz,
      closed_at    timestamptz,
      PRIMARY KEY (purchase_id, method, handle),
      CHECK (withdrawn_at IS NOT NULL OR (next_look_at IS NULL AND closed_at IS NULL))
    )`.execute(db);
    await sql`CREATE UNIQUE INDEX payment_offers_one_purchase_per_handle
      ON payment_offers (method, handle) WHERE method <> 'telegram'`.execute(db);
    await sql`CREATE INDEX payment_offers_to_look ON payment_offers (next_look_at)
      WHERE withdrawn_at IS NOT NULL AND closed_at IS NULL`.execute(db);
    await sql`
    INSERT INTO payment_offers (purchase_id, method, handle, offered_at)
      SELECT id, payment_method, payment_offer, created_at FROM purchases
      WHERE payment_method IS NOT NULL AND payment_offer IS NOT NULL`.execute(db);

    // The purchase's current offer is recorded; any other of its offers still current is
    // withdrawn (looked up from now on, if its system must be asked).
    await sql`
    CREATE FUNCTION purchases_record_offer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE payment_offers SET withdrawn_at = now(), next_look_at = now()
        WHERE purchase_id = NEW.id AND withdrawn_at IS NULL
          AND (NEW.payment_offer IS NULL OR method IS DISTINCT FROM NEW.payment_method
               OR handle <> NEW.payment_offer);
      IF NEW.payment_offer IS NOT NULL THEN
        INSERT INTO payment_offers (purchase_id, method, handle)
          VALUES (NEW.id, NEW.payment_method, NEW.payment_offer)
          ON CONFLICT (purchase_id, method, handle) DO UPDATE
            SET withdrawn_at = NULL, next_look_at = NULL, closed_at = NULL;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER purchases_offer_created AFTER INSERT ON purchases
      FOR EACH ROW WHEN (NEW.payment_offer IS NOT NULL)
      EXECUTE FUNCTION purchases_record_offer()`.execute(db);
    await sql`
    CREATE TRIGGER purchases_offer_changed AFTER UPDATE ON purchases
      FOR EACH ROW WHEN (OLD.payment_offer IS DISTINCT FROM NEW.payment_offer
        OR OLD.payment_method IS DISTINCT FROM NEW.payment_method)
      EXECUTE FUNCTION purchases_record_offer()`.execute(db);

    // A payment pays for a purchase only by a method it was offered with (the current method
    // counts before its offer's handle is written).
    await sql`
    CREATE FUNCTION payments_refuse_unoffered() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM payment_offers
                     WHERE purchase_id = NEW.purchase_id AND method = NEW.method)
         AND NOT EXISTS (SELECT 1 FROM purchases
                         WHERE id = NEW.purchase_id AND payment_method = NEW.method) THEN
        RAISE EXCEPTION 'applied payment refused: payment % by % for purchase %, never offered by it',
          NEW.id, NEW.method, NEW.purchase_id USING ERRCODE = ${sql.lit(PAYMENT_NOT_OFFERED)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER payments_applied_offered BEFORE INSERT ON payments
      FOR EACH ROW WHEN (NEW.applied)
      EXECUTE FUNCTION payments_refuse_unoffered()`.execute(db);
    await sql`
    CREATE TRIGGER payments_applied_offered_changed BEFORE UPDATE ON payments
      FOR EACH ROW WHEN (NEW.applied AND (NOT OLD.applied
        OR OLD.purchase_id IS DISTINCT FROM NEW.purchase_id
        OR OLD.method IS DISTINCT FROM NEW.method))
      EXECUTE FUNCTION payments_refuse_unoffered()`.execute(db);
  },
};
