// A ledger database that reads but takes no writes (a standby after a failover, here a server
// of the test's own made read-only): the probe finds it away (/readyz, the log, journaled
// confirmations), a write is "unavailable", never a refusal; writable again, it is back.
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUnreachable, LedgerConnection } from "../../src/adapters/ledger/connection.js";
import { captureLogs } from "../support/log-capture.js";
import { type OwnPostgres, startOwnPostgres } from "../support/postgres-server.js";
import { until } from "../support/wait.js";

let postgres: OwnPostgres;
beforeAll(async () => {
  postgres = await startOwnPostgres();
}, 30_000);
afterAll(() => postgres?.stop());

async function readOnly(on: boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  try {
    await admin.query(`ALTER SYSTEM SET default_transaction_read_only = ${on ? "on" : "off"}`);
    await admin.query("SELECT pg_reload_conf()");
  } finally {
    await admin.end();
  }
}

describe("a ledger database that takes no writes", () => {
  it("is away while read only, and back once it takes writes again", async () => {
    const { logger, lines } = captureLogs();
    const ledger = new LedgerConnection(
      { kind: "postgres", url: postgres.url, poolSize: 2, statementTimeoutMs: 2_000 },
      { log: logger, probeMs: 50 },
    );
    await ledger.open();
    try {
      expect(ledger.healthy).toBe(true);
      await readOnly(true);
      await until(() => !ledger.healthy, 5_000);
      const write = await ledger
        .run((db) => sql`CREATE TEMP TABLE t (x int)`.execute(db))
        .catch((error: unknown) => error);
      expect(isUnreachable(write)).toBe(true);
      expect(lines().filter((line) => line.includes("is unreachable"))).toHaveLength(1);
      await readOnly(false);
      await until(() => ledger.healthy, 5_000);
      await ledger.run((db) => sql`SELECT 1`.execute(db));
    } finally {
      await readOnly(false);
      await ledger.close();
    }
  }, 30_000);
});
