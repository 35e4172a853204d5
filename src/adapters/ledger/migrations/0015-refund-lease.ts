// One issuer of each refund through a payment system's API (review of issue 36): two replicas,
// or two paths of one (a refund owed as a payment came, the refund desk's own retries, a start
// taking up refunds left unfinished), could each call the system's refund for one payment at
// once. A refund call is made only by the holder of a live lease on the payment's refund,
// taken by a conditional write (free, lapsed, or already the taker's) and renewed by the write
// that counts the call as it leaves: the database refuses a call counted without it.
//
// A refund call whose answer was lost (a timeout, a reset connection, a proxy's page) may have
// refunded the payment: it is recorded as sent (refund_sent_at, written as the call leaves and
// cleared only by an answer: the system's own, or its lookup saying the payment is not
// refunded), and the database refuses another call while it is set: it is found out, never
// tried blindly.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * SQLSTATE of a refund call counted without a live lease on the payment's refund, or while an
 * earlier call's outcome is unknown.
 */
const REFUND_CALL_REFUSED = "LG015";

export const refundLease: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE payments
      ADD COLUMN refund_lease_owner text,
      ADD COLUMN refund_lease_until timestamptz,
      ADD COLUMN refund_sent_at timestamptz,
      ADD CONSTRAINT payments_refund_lease_pair
        CHECK ((refund_lease_owner IS NULL) = (refund_lease_until IS NULL)),
      -- Only a refund still owed is leased: its end (refunded) lets the lease go in one write.
      ADD CONSTRAINT payments_refund_lease_owed
        CHECK (refund_lease_owner IS NULL OR refund = 'due'),
      ADD CONSTRAINT payments_refund_sent_owed
        CHECK (refund_sent_at IS NULL OR refund <> 'none')`.execute(db);

    await sql`
    CREATE FUNCTION payments_refund_call_leased() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.refund_attempts > OLD.refund_attempts
         AND (NEW.refund_lease_owner IS NULL OR NEW.refund_lease_until <= now()) THEN
        RAISE EXCEPTION 'a refund call needs a live lease on the payment''s refund'
          USING ERRCODE = '${sql.raw(REFUND_CALL_REFUSED)}';
      END IF;
      IF NEW.refund_attempts > OLD.refund_attempts AND OLD.refund_sent_at IS NOT NULL THEN
        RAISE EXCEPTION 'a refund call whose outcome is unknown is found out before another'
          USING ERRCODE = '${sql.raw(REFUND_CALL_REFUSED)}';
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER payments_refund_call_leased BEFORE UPDATE OF refund_attempts ON payments
      FOR EACH ROW EXECUTE FUNCTION payments_refund_call_leased()`.execute(db);
  },
};
