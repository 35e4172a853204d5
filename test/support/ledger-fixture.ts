// The ledger a suite works on, on either engine: a fresh database on the run's PostgreSQL
// server (test/support/postgres.ts), or PGlite in memory. Opened, and so migrated, before the
// suite's tests; closed after them.
import { sql } from "kysely";
import { afterAll, beforeAll } from "vitest";
import {
  LedgerConnection,
  type LedgerOptions,
  type LedgerTarget,
} from "../../src/adapters/ledger/connection.js";
import { captureLogs } from "./log-capture.js";
import { testDatabase } from "./postgres.js";

/**
 * Every migration of the ledger, in order, written out here rather than read from the code: a
 * migration added, renamed or reordered must be seen by the tests that check what was applied.
 */
export const EVERY_MIGRATION: readonly string[] = [
  "0001-purchases",
  "0002-payments",
  "0003-money-rules",
  "0004-purchase-versions",
  "0005-esewa",
  "0006-payment-offers",
  "0007-provider-balance",
  "0008-reconciliation",
  "0009-offer-lifecycle",
  "0010-payment-anomalies",
  "0011-payment-payer",
  "0012-documented-states",
  "0013-customer-proved",
  "0014-menu-message",
  "0015-refund-lease",
  "0016-money-guards",
  "0017-fonepay",
];

export type LedgerEngine = "PostgreSQL" | "PGlite";

/** The two engines a ledger suite runs on, for `describe.each(LEDGER_ENGINES)("… on %s", …)`. */
export const LEDGER_ENGINES: readonly LedgerEngine[] = ["PostgreSQL", "PGlite"];

/** Where a new, empty ledger lives on `engine`: a database named after `name`, or memory. */
export async function ledgerTarget(
  engine: LedgerEngine,
  name: string,
  poolSize = 10,
): Promise<LedgerTarget> {
  if (engine === "PGlite") return { kind: "embedded", dataDir: null };
  return { kind: "postgres", url: await testDatabase(name), poolSize, statementTimeoutMs: 5_000 };
}

export interface TestLedger {
  /** The open ledger, from the suite's first hook on. */
  readonly connection: LedgerConnection;
  readonly db: LedgerConnection["db"];
  /** Removes every purchase and payment, for the next test. */
  empty(): Promise<void>;
}

/**
 * A ledger on `engine` for the suite this is called in (or the file, at its top level). Called
 * before the suite's own hooks, the ledger is open in them and closed after them.
 */
export function testLedger(
  engine: LedgerEngine,
  name: string,
  { poolSize, log }: { poolSize?: number; log?: LedgerOptions["log"] } = {},
): TestLedger {
  const logger = log ?? captureLogs().logger;
  let ledger: LedgerConnection | undefined;
  beforeAll(async () => {
    ledger = new LedgerConnection(await ledgerTarget(engine, name, poolSize), { log: logger });
    await ledger.open();
  }, 60_000);
  afterAll(async () => {
    await ledger?.close();
  });
  const open = (): LedgerConnection => {
    if (!ledger) throw new Error("the test ledger opens in the suite's beforeAll");
    return ledger;
  };
  return {
    get connection() {
      return open();
    },
    get db() {
      return open().db;
    },
    async empty() {
      await sql`TRUNCATE payments, payment_offers, payment_anomalies, purchase_events, purchase_checkouts, purchases`.execute(
        open().db,
      );
    },
  };
}
