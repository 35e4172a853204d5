// Migrations: applied at start (and by `npm run migrate`) under a PostgreSQL advisory lock, so
// that replicas starting together apply each once. A database migrated by a newer release than
// this one is refused: this code would not know its shape.
import { type Kysely, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { MIGRATIONS } from "./migrations/index.js";
import type { LedgerTables } from "./schema.js";

/** pg_advisory_lock's key: "topupbot" read as a number, the same for every replica. */
const MIGRATION_LOCK = 0x746f707570626f74n;
const MIGRATION_TABLE = "ledger_migrations";

class DatabaseNewerError extends Error {
  constructor(unknown: string[]) {
    super(
      `the database was migrated by a newer release of the bot (migrations ${unknown.join(", ")} ` +
        "are unknown to this one): run that release or a newer one, or restore a backup",
    );
    this.name = "DatabaseNewerError";
  }
}

/** Applies what is missing; returns the names applied now. */
export async function migrate(db: Kysely<LedgerTables>): Promise<string[]> {
  return db.connection().execute(async (connection) => {
    // A start on a ledger already up to date (nearly every start) reads one list, without the
    // lock and Kysely's migrator (its own tables, a transaction: ten round trips).
    if (upToDate(await appliedNames(connection))) return [];
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`.execute(connection);
    try {
      const migrator = new Migrator({
        db: connection,
        provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
        migrationTableName: MIGRATION_TABLE,
        migrationLockTableName: `${MIGRATION_TABLE}_lock`,
      });
      const known = new Set(Object.keys(MIGRATIONS));
      const applied = await appliedNames(connection);
      const unknown = applied.filter((name) => !known.has(name));
      if (unknown.length > 0) throw new DatabaseNewerError(unknown);
      const { error, results = [] } = await migrator.migrateToLatest();
      if (error) throw error;
      return results.filter((r) => r.status === "Success").map((r) => r.migrationName);
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
    }
  });
}

/** Every migration this release knows, and no other, is applied. */
function upToDate(applied: string[]): boolean {
  const known = Object.keys(MIGRATIONS);
  return applied.length === known.length && known.every((name) => applied.includes(name));
}

async function appliedNames(db: Kysely<LedgerTables>): Promise<string[]> {
  const exists = await sql<{ found: string | null }>`
    SELECT to_regclass(${MIGRATION_TABLE})::text AS found`.execute(db);
  if (!exists.rows[0]?.found) return [];
  const rows = await sql<{ name: string }>`
    SELECT name FROM ${sql.table(MIGRATION_TABLE)} ORDER BY name`.execute(db);
  return rows.rows.map((row) => row.name);
}
