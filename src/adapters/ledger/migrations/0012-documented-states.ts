// The payment systems' documented states (issue 36, point 7), in the ledger.
//
// A purchase may end unpaid because its payment failed at the system (Khalti's Failed: nothing
// was taken), or because the system gave the payment back before it paid for anything
// ('refunded-outside').
//
// A payment whose system says part of it went back outside the bot before it paid for anything
// (Khalti's Partially Refunded, eSewa's PARTIAL_REFUND) is recorded as received, with when that
// was seen and, where the system says, how much: it never pays for a purchase (partial money is
// no top-up), and the rest is owed back until refunded. Columns of the payment rather than a
// table of refunds: the payment row is already the ledger's record of the money and of the one
// refund it is owed (refund: none, due, refunded, with who and when); neither system states the
// part it gave back, so a table's rows would carry no amount; and on one row the database holds
// the rule itself, in a check.
//
// Why a refund through a system's API was left to a person (refund_by_hand): its tries ran out,
// the system refused it, or it needs the payer's mobile number (a Khalti bank payment), so that
// /refunds says why and a restart does not ask again.
//
// The payer's mobile number for a Khalti offer (payer_mobile): Khalti refunds a bank payment only
// with the mobile number of the payer's Khalti account, which its lookup does not give; its
// return page's redirect does, when it is not masked. Personal data: kept only complete and only
// for Khalti, never logged, erased once the payment's refund is done.
//
// A payment set aside has a kind: 'payment', a payment that cannot be recorded as it came
// (0010), or 'unsettled', an offer whose system still gave no final answer a while after it
// could no longer be paid (PENDING, AMBIGUOUS, no readable answer): raised once for a person,
// still looked up, and closed by the bot when the system settles it.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

const REASONS = `'declined', 'verified', 'unavailable', 'paused', 'interrupted', 'offer-changed',
  'cancelled', 'expired', 'amount-differs', 'failed', 'refunded-outside'`;

export const documentedStates: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE purchases
      DROP CONSTRAINT purchases_reason_check,
      ADD CONSTRAINT purchases_reason_check CHECK (reason IN (${sql.raw(REASONS)}))`.execute(db);

    await sql`ALTER TABLE payments
      ADD COLUMN outside_refund_seen_at timestamptz,
      ADD COLUMN outside_refund_minor bigint CHECK (outside_refund_minor > 0),
      ADD COLUMN refund_by_hand text
        CHECK (refund_by_hand IN ('failed', 'refused', 'needs-mobile')),
      -- How much went back outside is known only with when, and is less than what was paid.
      ADD CONSTRAINT payments_outside_refund_part CHECK (outside_refund_minor IS NULL
        OR (outside_refund_seen_at IS NOT NULL AND outside_refund_minor < minor)),
      -- Given back in part outside: it pays for nothing, and the rest is owed (or refunded).
      ADD CONSTRAINT payments_part_refunded_pays_nothing CHECK (outside_refund_seen_at IS NULL
        OR (NOT applied AND refund <> 'none')),
      ADD CONSTRAINT payments_by_hand_owed CHECK (refund_by_hand IS NULL OR refund <> 'none')`.execute(
      db,
    );

    await sql`ALTER TABLE payment_offers
      ADD COLUMN payer_mobile text CHECK (payer_mobile ~ '^9[0-9]{9}$'),
      ADD CONSTRAINT payment_offers_mobile_khalti CHECK (payer_mobile IS NULL OR method = 'khalti')`.execute(
      db,
    );

    await sql`ALTER TABLE payment_anomalies
      ADD COLUMN kind text NOT NULL DEFAULT 'payment' CHECK (kind IN ('payment', 'unsettled'))`.execute(
      db,
    );
  },
};
