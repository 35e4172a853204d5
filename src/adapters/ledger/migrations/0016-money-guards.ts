// The money records guarded in the database itself against writes that break the rules,
// whoever makes them (a bug, a script, a person at psql): what the bot writes never needs them.
//
// - A payment received is kept as it was recorded: never deleted, and what identifies it and
//   what it was (its method, purchase, payer, currency, amount, charge ids, whether it paid for
//   its purchase, when it came) never changed. Its refund moves only forward (none ↔ due while
//   owed: a top-up found after all owes nothing; due → refunded), and a refund done stays done,
//   with who and when.
// - A payment set aside for a person (payment_anomalies) is never deleted, what the payment
//   system stated of it never changed, and once a person (or, for an offer raised as unsettled,
//   the bot) closed it, it stays closed: the one way back is a payment set aside later on an
//   offer raised as unsettled, which takes that row over (set-aside.ts), as a payment.
// - A payment set aside for a person stays a person's: it is never recorded as received
//   afterwards (then topped up or refunded by the bot), whatever path brings it again (a lookup
//   answering otherwise, the reconciliation, the journal's replay), open or closed. Only the
//   person settles it, by hand, and /refunded records that. An offer raised as unsettled is no
//   payment set aside: its payment is recorded when its system settles it, unless a person
//   settled it first (closed it by /refunded: refunded by hand), when it stays theirs too.
// - A reconciliation finding resolved by an admin or settled by the bot is never reopened, nor
//   deleted.
// - Purchases are held already: a purchase with a payment or a history cannot be deleted (their
//   foreign keys), and nothing leaves a finished phase (0003-money-rules).
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/** SQLSTATE of a write that would change or delete a money record. */
export const MONEY_RECORD_KEPT = "LG020";
/** SQLSTATE of a write that would undo a refund done, or reopen what was closed or settled. */
export const SETTLED_STAYS_SETTLED = "LG021";
/** SQLSTATE of a payment recorded as received after it was set aside for a person. */
export const SET_ASIDE_IS_A_PERSONS = "LG022";

/** What a payment was when it came: never changed once recorded. */
const PAYMENT_FACTS = [
  "purchase_id",
  "buyer",
  "payer",
  "method",
  "currency",
  "minor",
  "charge_id",
  "provider_charge_id",
  "applied",
  "received_at",
] as const;

/** What the payment system stated of a payment set aside: never changed once it is a payment's. */
const SET_ASIDE_FACTS = [
  "method",
  "charge_id",
  "purchase_id",
  "currency",
  "amount",
  "provider_charge_id",
  "paid_at",
] as const;

const changed = (columns: readonly string[]) =>
  sql.raw(columns.map((column) => `NEW.${column} IS DISTINCT FROM OLD.${column}`).join(" OR "));

export const moneyGuards: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
    CREATE FUNCTION payments_refuse_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'payment % is a money record: it is never deleted', OLD.id
          USING ERRCODE = ${sql.lit(MONEY_RECORD_KEPT)};
      END IF;
      IF ${changed(PAYMENT_FACTS)} THEN
        RAISE EXCEPTION 'payment % is a money record: what it was is never changed', OLD.id
          USING ERRCODE = ${sql.lit(MONEY_RECORD_KEPT)};
      END IF;
      IF OLD.refund = 'refunded' AND (NEW.refund IS DISTINCT FROM OLD.refund
          OR NEW.refunded_at IS DISTINCT FROM OLD.refunded_at
          OR NEW.refunded_by IS DISTINCT FROM OLD.refunded_by) THEN
        RAISE EXCEPTION 'payment % was refunded: its refund stays done', OLD.id
          USING ERRCODE = ${sql.lit(SETTLED_STAYS_SETTLED)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER payments_record_kept BEFORE UPDATE OR DELETE ON payments
      FOR EACH ROW EXECUTE FUNCTION payments_refuse_rewrite()`.execute(db);

    await sql`
    CREATE FUNCTION payment_anomalies_refuse_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'payment set aside % is a money record: it is never deleted', OLD.id
          USING ERRCODE = ${sql.lit(MONEY_RECORD_KEPT)};
      END IF;
      -- An offer raised as unsettled, taken over by a payment set aside on it.
      IF OLD.kind = 'unsettled' AND NEW.kind = 'payment' THEN
        RETURN NEW;
      END IF;
      IF NEW.kind IS DISTINCT FROM OLD.kind
         OR (OLD.kind = 'payment' AND (${changed(SET_ASIDE_FACTS)})) THEN
        RAISE EXCEPTION 'payment set aside % is a money record: what it was is never changed', OLD.id
          USING ERRCODE = ${sql.lit(MONEY_RECORD_KEPT)};
      END IF;
      IF OLD.closed_at IS NOT NULL AND (NEW.closed_at IS DISTINCT FROM OLD.closed_at
          OR NEW.closed_by IS DISTINCT FROM OLD.closed_by) THEN
        RAISE EXCEPTION 'payment set aside % was closed: it stays closed', OLD.id
          USING ERRCODE = ${sql.lit(SETTLED_STAYS_SETTLED)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER payment_anomalies_record_kept BEFORE UPDATE OR DELETE ON payment_anomalies
      FOR EACH ROW EXECUTE FUNCTION payment_anomalies_refuse_rewrite()`.execute(db);

    await sql`
    CREATE FUNCTION payments_refuse_set_aside() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM payment_anomalies
                 WHERE method = NEW.method AND charge_id = NEW.charge_id
                   AND (kind = 'payment'
                        OR (kind = 'unsettled' AND closed_at IS NOT NULL AND closed_by <> 'bot'))) THEN
        RAISE EXCEPTION 'payment % of % was set aside for a person: only a person settles it',
          NEW.charge_id, NEW.method
          USING ERRCODE = ${sql.lit(SET_ASIDE_IS_A_PERSONS)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER payments_set_aside_a_persons BEFORE INSERT ON payments
      FOR EACH ROW EXECUTE FUNCTION payments_refuse_set_aside()`.execute(db);

    await sql`
    CREATE FUNCTION reconciliation_findings_refuse_reopen() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF OLD.status = 'open' THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'reconciliation finding % was %: it is never deleted', OLD.id, OLD.status
          USING ERRCODE = ${sql.lit(SETTLED_STAYS_SETTLED)};
      END IF;
      IF OLD.status <> 'open' AND (NEW.status IS DISTINCT FROM OLD.status
          OR NEW.resolved_at IS DISTINCT FROM OLD.resolved_at
          OR NEW.resolved_by IS DISTINCT FROM OLD.resolved_by) THEN
        RAISE EXCEPTION 'reconciliation finding % was %: it stays so', OLD.id, OLD.status
          USING ERRCODE = ${sql.lit(SETTLED_STAYS_SETTLED)};
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER reconciliation_findings_stay_settled
      BEFORE UPDATE OR DELETE ON reconciliation_findings
      FOR EACH ROW EXECUTE FUNCTION reconciliation_findings_refuse_reopen()`.execute(db);
  },
};
