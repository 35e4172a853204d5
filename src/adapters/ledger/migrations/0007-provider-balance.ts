// The provider balance (issue 32, point 4): what admins deposit at the provider and read on its
// portal, kept append-only like the money itself, and the moment each purchase was charged, so
// that the balance expected can subtract exactly the top-ups since a reading.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

export const providerBalance: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
    CREATE TABLE provider_balance_entries (
      id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      kind         text NOT NULL CHECK (kind IN ('deposit', 'reading')),
      amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
      note         text NOT NULL DEFAULT '' CHECK (length(note) <= 200),
      admin        bigint NOT NULL,
      recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp()
    )`.execute(db);
    await sql`
    CREATE FUNCTION provider_balance_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'provider balance entries are append-only' USING ERRCODE = 'LG004';
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER provider_balance_entries_append_only
      BEFORE UPDATE OR DELETE ON provider_balance_entries
      FOR EACH ROW EXECUTE FUNCTION provider_balance_entries_append_only()`.execute(db);
    // When a purchase became charged, set by the database whoever writes the phase.
    await sql`ALTER TABLE purchases ADD COLUMN charged_at timestamptz`.execute(db);
    await sql`UPDATE purchases SET charged_at = updated_at WHERE phase = 'charged'`.execute(db);
    await sql`
    CREATE FUNCTION purchases_charged_at() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.phase = 'charged' AND NEW.charged_at IS NULL THEN
        NEW.charged_at := clock_timestamp();
      END IF;
      RETURN NEW;
    END $$`.execute(db);
    await sql`
    CREATE TRIGGER purchases_charged_at BEFORE INSERT OR UPDATE ON purchases
      FOR EACH ROW EXECUTE FUNCTION purchases_charged_at()`.execute(db);
    await sql`CREATE INDEX purchases_charged_at ON purchases (charged_at)
      WHERE charged_at IS NOT NULL`.execute(db);
  },
};
