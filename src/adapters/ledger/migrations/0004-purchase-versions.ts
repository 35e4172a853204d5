// Every write of a purchase names the version it read and moves it on, so that a stale copy (a
// slow lookup, another instance) is refused instead of undoing a newer write.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

export const purchaseVersions: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE purchases
      ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0)`.execute(db);
  },
};
