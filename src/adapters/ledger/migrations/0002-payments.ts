// Subscribers pay in the bot: a purchase waits for its payment, and every payment received is a
// row of its own, so that a second or late payment is owed back as surely as the first. The
// database holds the money rules it can: a charge id is recorded once, one payment pays for a
// purchase, a refund is marked done once and says by whom.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

const PHASES = `'created', 'token-taken', 'requested', 'charged', 'not-charged', 'unknown',
  'awaiting-payment', 'paid', 'unpaid', 'refund-due', 'refunded'`;
const OPEN = `'created', 'token-taken', 'requested', 'unknown', 'awaiting-payment', 'paid'`;
const REASONS = `'declined', 'verified', 'unavailable', 'paused', 'interrupted', 'offer-changed',
  'cancelled', 'expired', 'amount-differs'`;

export const payments: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // The first migration's checks, named by PostgreSQL, widened to the payment phases.
    await sql`
    ALTER TABLE purchases
      DROP CONSTRAINT purchases_phase_check,
      DROP CONSTRAINT purchases_told_check,
      DROP CONSTRAINT purchases_reason_check,
      DROP CONSTRAINT purchases_check3,
      ADD CONSTRAINT purchases_phase_check CHECK (phase IN (${sql.raw(PHASES)})),
      ADD CONSTRAINT purchases_told_check CHECK (told IN (${sql.raw(PHASES)})),
      ADD CONSTRAINT purchases_reason_check CHECK (reason IN (${sql.raw(REASONS)})),
      -- An open purchase is looked at again; a finished one is not (a refund due may be either).
      ADD CONSTRAINT purchases_open_is_due CHECK (
        phase = 'refund-due' OR (phase IN (${sql.raw(OPEN)})) = (due_at IS NOT NULL)),
      ADD COLUMN payment_method text CHECK (payment_method IN ('telegram', 'khalti')),
      ADD COLUMN payment_currency text CHECK (payment_currency ~ '^[A-Z]{3}$'),
      ADD COLUMN payment_minor bigint CHECK (payment_minor > 0),
      ADD COLUMN payment_expires_at timestamptz,
      ADD COLUMN payment_offer text,
      ADD COLUMN payment_charge_id text,
      ADD COLUMN payment_provider_charge_id text,
      ADD COLUMN paid_at timestamptz,
      ADD CONSTRAINT purchases_payment_whole CHECK (
        (payment_method IS NULL) = (payment_currency IS NULL)
        AND (payment_method IS NULL) = (payment_minor IS NULL)
        AND (payment_method IS NULL) = (payment_expires_at IS NULL)),
      ADD CONSTRAINT purchases_paid_has_charge CHECK ((payment_charge_id IS NULL) = (paid_at IS NULL)),
      -- Nothing is topped up or owed back without a payment when the purchase asked for one.
      ADD CONSTRAINT purchases_paid_before_topup CHECK (
        payment_method IS NULL OR phase IN ('awaiting-payment', 'unpaid')
        OR payment_charge_id IS NOT NULL)`.execute(db);
    await sql`ALTER TABLE purchase_events
      DROP CONSTRAINT purchase_events_from_phase_check,
      DROP CONSTRAINT purchase_events_to_phase_check,
      DROP CONSTRAINT purchase_events_told_check,
      ADD CONSTRAINT purchase_events_from_phase_check CHECK (from_phase IN (${sql.raw(PHASES)})),
      ADD CONSTRAINT purchase_events_to_phase_check CHECK (to_phase IN (${sql.raw(PHASES)})),
      ADD CONSTRAINT purchase_events_told_check CHECK (told IN (${sql.raw(PHASES)}))`.execute(db);
    await sql`CREATE INDEX purchases_awaiting_payment ON purchases (buyer)
      WHERE phase = 'awaiting-payment'`.execute(db);
    // Khalti's pidx names one purchase: the return page finds it by it. (A Telegram invoice's
    // handle is a message id, unique only within its chat.)
    await sql`CREATE UNIQUE INDEX purchases_by_khalti_pidx ON purchases (payment_offer)
      WHERE payment_method = 'khalti'`.execute(db);

    // Every payment received, whatever it paid for. `applied`: the one that pays for its
    // purchase's top-up; any other is owed back at once.
    await sql`
    CREATE TABLE payments (
      id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      purchase_id        text REFERENCES purchases (id),
      buyer              bigint,
      method             text NOT NULL CHECK (method IN ('telegram', 'khalti')),
      currency           text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      minor              bigint NOT NULL CHECK (minor > 0),
      charge_id          text NOT NULL,
      provider_charge_id text,
      received_at        timestamptz NOT NULL DEFAULT now(),
      applied            boolean NOT NULL,
      refund             text NOT NULL DEFAULT 'none' CHECK (refund IN ('none', 'due', 'refunded')),
      refund_reason      text,
      refund_due_at      timestamptz,
      refunded_at        timestamptz,
      refunded_by        text,
      refund_note        text,
      -- Refunds by API (Khalti): calls begun, each counted before it leaves.
      refund_attempts    smallint NOT NULL DEFAULT 0,
      UNIQUE (method, charge_id),
      CHECK ((refund = 'none') = (refund_due_at IS NULL)),
      CHECK ((refund = 'refunded') = (refunded_at IS NOT NULL AND refunded_by IS NOT NULL)),
      CHECK (applied OR refund <> 'none')
    )`.execute(db);
    await sql`CREATE UNIQUE INDEX payments_one_applied_per_purchase ON payments (purchase_id)
      WHERE applied`.execute(db);
    await sql`CREATE INDEX payments_refunds_due ON payments (refund_due_at)
      WHERE refund = 'due'`.execute(db);
    await sql`CREATE INDEX payments_by_time ON payments (received_at)`.execute(db);
  },
};
