// The daily reconciliation's own ledger: its runs and their findings. A day may be run many
// times (an admin runs it again after a party could not be asked), but the daily schedule runs
// it once: one scheduled run per day, held by the unique index across replicas and restarts. A
// run is held by one instance under a lease and resumes after the last purchase done when its
// holder died. A finding is open until an admin resolves it with a note; the same finding is
// not opened twice while it is open. Amounts are exact integers in minor units (paisa).
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

export const reconciliation: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
    CREATE TABLE reconciliation_runs (
      id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      first_day    date NOT NULL,
      last_day     date NOT NULL CHECK (last_day >= first_day),
      -- Started by RECONCILE_AT (NULL started_by) rather than by an admin.
      scheduled    boolean NOT NULL,
      started_by   bigint,
      started_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
      finished_at  timestamptz,
      -- The instance running it holds it until then; a lapsed lease is taken over.
      held_by      text NOT NULL,
      lease_until  timestamptz,
      -- The last purchase done ("day/purchase id"): a run taken over resumes after it.
      resume_after text,
      purchases    integer NOT NULL DEFAULT 0,
      -- When the scheduled run's report went to the admins.
      reported_at  timestamptz,
      CHECK (scheduled = (started_by IS NULL)),
      CHECK ((finished_at IS NULL) = (lease_until IS NOT NULL))
    )`.execute(db);
    await sql`CREATE UNIQUE INDEX reconciliation_runs_scheduled_day ON reconciliation_runs (first_day)
      WHERE scheduled`.execute(db);
    await sql`CREATE INDEX reconciliation_runs_unfinished ON reconciliation_runs (id)
      WHERE finished_at IS NULL`.execute(db);
    await sql`
    CREATE TABLE reconciliation_findings (
      id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      run_id        bigint NOT NULL REFERENCES reconciliation_runs (id),
      day           date NOT NULL,
      purchase_id   text NOT NULL,
      kind          text NOT NULL,
      outside_ids   text NOT NULL DEFAULT '',
      ledger_minor  bigint,
      outside_minor bigint,
      next_step     text NOT NULL,
      found_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
      status        text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
      -- An admin, or NULL when a later run asked the party that could not be asked.
      resolved_by   bigint,
      note          text CHECK (length(note) <= 500),
      resolved_at   timestamptz,
      CHECK ((status = 'resolved') = (resolved_at IS NOT NULL AND note IS NOT NULL)),
      CHECK (resolved_by IS NOT NULL OR kind = 'not-asked' OR status = 'open')
    )`.execute(db);
    await sql`CREATE UNIQUE INDEX reconciliation_findings_open_once ON reconciliation_findings
      (day, purchase_id, kind, outside_ids) WHERE status = 'open'`.execute(db);
    // A day's purchases are found by when they were offered a payment or took a checkout token
    // (payments_by_time already indexes when payments were received).
    await sql`CREATE INDEX payment_offers_by_time ON payment_offers (offered_at)`.execute(db);
    await sql`CREATE INDEX purchase_checkouts_by_time ON purchase_checkouts (taken_at)`.execute(db);
    // A page of purchases' payments, every one (a second payment is not applied).
    await sql`CREATE INDEX payments_by_purchase ON payments (purchase_id)
      WHERE purchase_id IS NOT NULL`.execute(db);
    await sql`CREATE INDEX reconciliation_findings_by_run ON reconciliation_findings (run_id)`.execute(
      db,
    );
  },
};
