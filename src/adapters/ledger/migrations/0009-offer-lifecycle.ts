// An offer lives as long as its payment system takes a payment on it, not as long as its
// purchase waits: a Khalti link stays payable until Khalti's expires_at, an eSewa form posted
// from the pay page for a while (eSewa publishes no expiry), whatever the bot did meanwhile.
// Every offer now records until when it is payable (from the purchase's current offer, as the
// system said); an offer whose purchase ends unpaid is watched from then on like one withdrawn
// by a switch of method; and a payment found on it pays for its purchase after all: unpaid may
// become paid (the one new change of phase). The daily reconciliation's findings name the
// provider's transaction of each checkout token, and a finding the bot settled itself (a
// payment it had missed, now recorded) is kept as settled, with a note.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/** The changes of phase this migration allows besides 0003-money-rules' own. */
export const LATE_PAYMENT_PHASE_CHANGES = [
  ["unpaid", "paid"],
] as const satisfies readonly (readonly [string, string])[];

export const offerLifecycle: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`LOCK TABLE purchases, payment_offers IN SHARE ROW EXCLUSIVE MODE`.execute(db);
    await sql`ALTER TABLE purchases ADD COLUMN payment_offer_until timestamptz`.execute(db);
    await sql`ALTER TABLE payment_offers ADD COLUMN payable_until timestamptz`.execute(db);
    // Offers made before: Khalti keeps a link about 30 minutes and eSewa says nothing, so an
    // hour after the offer (ESEWA_OFFER_MINUTES' default), or the purchase's window if later.
    await sql`
    UPDATE payment_offers o
       SET payable_until = greatest(p.payment_expires_at, o.offered_at + interval '60 minutes')
      FROM purchases p
     WHERE p.id = o.purchase_id AND o.method <> 'telegram'`.execute(db);
    // The offers of purchases that ended unpaid lately get one last look.
    await sql`
    UPDATE payment_offers o SET withdrawn_at = now(), next_look_at = now()
      FROM purchases p
     WHERE p.id = o.purchase_id AND p.phase = 'unpaid' AND o.withdrawn_at IS NULL
       AND o.method <> 'telegram' AND o.payable_until > now() - interval '1 day'`.execute(db);

    // The purchase's current offer is recorded with until when it is payable (kept at the
    // latest known: eSewa's pay page moves it on); any other of its offers still current is
    // withdrawn (looked up from now on, if its system must be asked).
    await sql`
    CREATE OR REPLACE FUNCTION purchases_record_offer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE payment_offers SET withdrawn_at = now(), next_look_at = now()
        WHERE purchase_id = NEW.id AND withdrawn_at IS NULL
          AND (NEW.payment_offer IS NULL OR method IS DISTINCT FROM NEW.payment_method
               OR handle <> NEW.payment_offer);
      IF NEW.payment_offer IS NOT NULL THEN
        INSERT INTO payment_offers (purchase_id, method, handle, payable_until)
          VALUES (NEW.id, NEW.payment_method, NEW.payment_offer, NEW.payment_offer_until)
          ON CONFLICT (purchase_id, method, handle) DO UPDATE
            SET withdrawn_at = NULL, next_look_at = NULL, closed_at = NULL,
                payable_until = greatest(payment_offers.payable_until, EXCLUDED.payable_until);
      END IF;
      RETURN NULL;
    END $$`.execute(db);

    // A purchase that ends unpaid leaves its offer payable at the system: watched from now on,
    // until its payable_until and one last look (payment-service.ts), like a withdrawn one. Not
    // a Telegram invoice: it is deleted as its purchase ends, and a payment on it is pushed (and
    // refused at pre-checkout) rather than looked up.
    await sql`
    CREATE FUNCTION purchases_watch_unpaid_offer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE payment_offers SET withdrawn_at = now(), next_look_at = now()
        WHERE purchase_id = NEW.id AND withdrawn_at IS NULL AND closed_at IS NULL
          AND method <> 'telegram';
      RETURN NULL;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER purchases_offer_unpaid AFTER UPDATE ON purchases
      FOR EACH ROW WHEN (OLD.phase = 'awaiting-payment' AND NEW.phase = 'unpaid')
      EXECUTE FUNCTION purchases_watch_unpaid_offer()`.execute(db);

    await sql`INSERT INTO purchase_transitions (from_phase, to_phase) VALUES ${sql.join(
      LATE_PAYMENT_PHASE_CHANGES.map(([from, to]) => sql`(${sql.lit(from)}, ${sql.lit(to)})`),
    )}`.execute(db);

    // The reconciliation: the provider's transaction beside each checkout token ("co1=TXN1
    // co2=none"); a finding the bot settled itself is kept, with its note, never open.
    await sql`ALTER TABLE reconciliation_findings
      ADD COLUMN provider_txns text NOT NULL DEFAULT '',
      DROP CONSTRAINT reconciliation_findings_status_check,
      DROP CONSTRAINT reconciliation_findings_check,
      DROP CONSTRAINT reconciliation_findings_check1,
      ADD CONSTRAINT reconciliation_findings_status_check
        CHECK (status IN ('open', 'resolved', 'settled')),
      ADD CONSTRAINT reconciliation_findings_closed_with_note
        CHECK ((status <> 'open') = (resolved_at IS NOT NULL AND note IS NOT NULL)),
      ADD CONSTRAINT reconciliation_findings_resolved_by_admin
        CHECK (resolved_by IS NOT NULL OR kind = 'not-asked' OR status <> 'resolved'),
      ADD CONSTRAINT reconciliation_findings_settled_by_bot
        CHECK (status <> 'settled' OR (resolved_by IS NULL AND kind = 'paid-not-settled'))`.execute(
      db,
    );
  },
};
