// The money rules the database can hold beyond a row's own columns: a purchase's phase changes
// only along the allowed transitions (nothing leaves a finished purchase), a purchase owed back
// or refunded has no provider transaction (it was not topped up), and a payment that pays for
// a purchase paid exactly what the purchase asked for. A write of the bot's that breaks one is
// a bug: it fails rather than moving money wrongly.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Every change of phase allowed (from, to); keeping the phase is always allowed. Written into
 * purchase_transitions by this migration, as the bot's phases were when it was written: a later
 * change of the domain's transitions needs a migration of its own.
 */
export const ALLOWED_PHASE_CHANGES = [
  ["awaiting-payment", "paid"],
  ["awaiting-payment", "unpaid"],
  ["created", "token-taken"],
  ["paid", "token-taken"],
  ["requested", "token-taken"],
  ["token-taken", "requested"],
  ["requested", "charged"],
  ["unknown", "charged"],
  ["token-taken", "charged"],
  ["paid", "charged"],
  ["refund-due", "charged"],
  ["created", "not-charged"],
  ["token-taken", "not-charged"],
  ["requested", "not-charged"],
  ["unknown", "not-charged"],
  ["requested", "unknown"],
  ["token-taken", "unknown"],
  ["paid", "unknown"],
  ["token-taken", "paid"],
  ["requested", "paid"],
  ["paid", "refund-due"],
  ["token-taken", "refund-due"],
  ["requested", "refund-due"],
  ["unknown", "refund-due"],
  ["refund-due", "refunded"],
] as const satisfies readonly (readonly [string, string])[];

/** SQLSTATE of a change of phase refused (a class PostgreSQL leaves to applications). */
export const PHASE_CHANGE_REFUSED = "LG001";
/** SQLSTATE of a payment applied to a purchase that asked for another amount or currency. */
export const PAYMENT_DIFFERS = "LG002";

/** Thrown before any rule is added: rows already there break one; nothing was changed. */
class MoneyRulesBrokenError extends Error {
  constructor(problems: string[], history: string[]) {
    super(
      "migration 0003-money-rules stopped and changed nothing: rows in the ledger break the " +
        `rules it adds (correct them by hand, then start again): ${problems.join("; ")}` +
        (history.length > 0
          ? `; also, for the record only: purchase histories with a change of phase now refused: ${history.join(", ")}`
          : ""),
    );
    this.name = "MoneyRulesBrokenError";
  }
}

export const moneyRules: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // No write of a replica still on the previous release slips in between the check of the rows
    // and the rules (the lock CREATE TRIGGER takes anyway, taken first; held until commit). The
    // Migrator runs every pending migration in one transaction (PostgreSQL and PGlite alike):
    // LOCK TABLE fails outside one, so this migration could never run half-applied.
    await sql`LOCK TABLE purchases, payments IN SHARE ROW EXCLUSIVE MODE`.execute(db);
    await refuseBrokenRows(db);

    await sql`
    CREATE TABLE purchase_transitions (
      from_phase text NOT NULL,
      to_phase   text NOT NULL CHECK (to_phase <> from_phase),
      PRIMARY KEY (from_phase, to_phase)
    )`.execute(db);
    await sql`INSERT INTO purchase_transitions (from_phase, to_phase) VALUES ${allowedRows()}`.execute(
      db,
    );
    // Before the row is written, so that a refused change leaves nothing (nor its event, written
    // in the same statement or transaction). The message says which purchase and which change:
    // never the buyer's details.
    await sql`
    CREATE FUNCTION purchases_refuse_phase_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM purchase_transitions
                     WHERE from_phase = OLD.phase AND to_phase = NEW.phase) THEN
        RAISE EXCEPTION 'phase change refused: purchase % from % to %', OLD.id, OLD.phase, NEW.phase
          USING ERRCODE = ${sql.lit(PHASE_CHANGE_REFUSED)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER purchases_phase_change BEFORE UPDATE ON purchases
      FOR EACH ROW WHEN (OLD.phase IS DISTINCT FROM NEW.phase)
      EXECUTE FUNCTION purchases_refuse_phase_change()`.execute(db);

    // Owed back or refunded means the provider never topped it up: it has no transaction.
    await sql`
    ALTER TABLE purchases ADD CONSTRAINT purchases_refund_without_txn
      CHECK (phase NOT IN ('refund-due', 'refunded') OR txn_id IS NULL)`.execute(db);

    // A payment pays for its purchase only when it paid what was asked, whoever writes it. The
    // purchase is read FOR SHARE: its asked amount cannot change under the check until commit.
    await sql`
    CREATE FUNCTION payments_refuse_other_amount() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      asked_minor bigint;
      asked_currency text;
    BEGIN
      SELECT payment_minor, payment_currency INTO asked_minor, asked_currency
        FROM purchases WHERE id = NEW.purchase_id FOR SHARE;
      IF NOT FOUND OR NEW.minor IS DISTINCT FROM asked_minor
         OR NEW.currency IS DISTINCT FROM asked_currency THEN
        RAISE EXCEPTION 'applied payment refused: payment % of % % for purchase %, which asks for % %',
          NEW.id, NEW.minor, NEW.currency, NEW.purchase_id, asked_minor, asked_currency
          USING ERRCODE = ${sql.lit(PAYMENT_DIFFERS)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    // Only when the rule may be at stake: marking a refund due or done reads no purchase.
    await sql`
    CREATE TRIGGER payments_applied_amount BEFORE INSERT ON payments
      FOR EACH ROW WHEN (NEW.applied)
      EXECUTE FUNCTION payments_refuse_other_amount()`.execute(db);
    await sql`
    CREATE TRIGGER payments_applied_amount_changed BEFORE UPDATE ON payments
      FOR EACH ROW WHEN (NEW.applied AND (NOT OLD.applied
        OR OLD.purchase_id IS DISTINCT FROM NEW.purchase_id
        OR OLD.minor IS DISTINCT FROM NEW.minor
        OR OLD.currency IS DISTINCT FROM NEW.currency))
      EXECUTE FUNCTION payments_refuse_other_amount()`.execute(db);
    // The same rule seen from the purchase: what it asked for stays what its payment paid.
    await sql`
    CREATE FUNCTION purchases_refuse_asked_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM payments WHERE purchase_id = NEW.id AND applied
                 AND (minor IS DISTINCT FROM NEW.payment_minor
                      OR currency IS DISTINCT FROM NEW.payment_currency)) THEN
        RAISE EXCEPTION 'asked amount change refused: purchase % has an applied payment of another amount',
          NEW.id USING ERRCODE = ${sql.lit(PAYMENT_DIFFERS)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER purchases_asked_change BEFORE UPDATE ON purchases
      FOR EACH ROW WHEN (OLD.payment_minor IS DISTINCT FROM NEW.payment_minor
        OR OLD.payment_currency IS DISTINCT FROM NEW.payment_currency)
      EXECUTE FUNCTION purchases_refuse_asked_change()`.execute(db);
    // At most one payment pays for a purchase: payments_one_applied_per_purchase (0002) holds it.
  },
};

const allowedRows = () =>
  sql.join(ALLOWED_PHASE_CHANGES.map(([from, to]) => sql`(${sql.lit(from)}, ${sql.lit(to)})`));

/**
 * Stops the migration (its transaction rolled back, so nothing is changed: a row is never
 * corrected silently) when a row already breaks a rule, naming every one.
 *
 * A recorded history with a change now refused does not stop it: the events are the past, as it
 * happened under the release of its day; the rules are about writes from now on, and the only
 * way to "fix" a history would be to rewrite the audit trail. Such histories are named in the
 * error when the migration stops for a current row, for whoever corrects the rows by hand.
 */
async function refuseBrokenRows(db: Kysely<unknown>): Promise<void> {
  const refunds = await sql<{ id: string }>`
    SELECT id FROM purchases
    WHERE phase IN ('refund-due', 'refunded') AND txn_id IS NOT NULL
    ORDER BY id`.execute(db);
  const payments = await sql<{ id: string; purchase_id: string | null }>`
    SELECT payments.id::text AS id, payments.purchase_id
    FROM payments LEFT JOIN purchases ON purchases.id = payments.purchase_id
    WHERE payments.applied AND (purchases.id IS NULL
      OR payments.minor IS DISTINCT FROM purchases.payment_minor
      OR payments.currency IS DISTINCT FROM purchases.payment_currency)
    ORDER BY payments.id`.execute(db);
  const problems = [
    ...(refunds.rows.length > 0
      ? [
          "purchases owed back or refunded with a provider transaction id: " +
            refunds.rows.map((row) => row.id).join(", "),
        ]
      : []),
    ...(payments.rows.length > 0
      ? [
          "applied payments whose amount or currency differs from their purchase's: " +
            payments.rows
              .map((row) => `payment ${row.id} (purchase ${row.purchase_id ?? "none"})`)
              .join(", "),
        ]
      : []),
  ];
  if (problems.length === 0) return;
  const history = await sql<{
    id: string;
    purchase_id: string;
    from_phase: string;
    to_phase: string;
  }>`
    SELECT events.id::text AS id, events.purchase_id, events.from_phase, events.to_phase
    FROM purchase_events AS events
    WHERE events.from_phase IS NOT NULL AND events.from_phase <> events.to_phase
      AND (events.from_phase, events.to_phase) NOT IN (VALUES ${allowedRows()})
    ORDER BY events.id`.execute(db);
  throw new MoneyRulesBrokenError(
    problems,
    history.rows.map(
      (row) => `${row.purchase_id} (event ${row.id}: ${row.from_phase} to ${row.to_phase})`,
    ),
  );
}
