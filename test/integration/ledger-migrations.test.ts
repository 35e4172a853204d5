// Migrations under several replicas, a database newer than the code, `npm run migrate`, and the
// embedded ledger's one-process-per-folder rule.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { LedgerConnection } from "../../src/adapters/ledger/connection.js";
import { EVERY_MIGRATION, ledgerTarget } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";

const logger = captureLogs().logger;
const postgres = () => ledgerTarget("PostgreSQL", "ledger_migrations", 3);

describe("migrations", () => {
  it("are applied once when replicas start at the same time", async () => {
    const target = await postgres();
    const replicas = Array.from({ length: 4 }, () => new LedgerConnection(target, { log: logger }));
    await Promise.all(replicas.map((replica) => replica.open()));
    const applied = await sql<{ name: string }>`SELECT name FROM ledger_migrations`.execute(
      replicas[0]?.db ?? ({} as never),
    );
    expect(applied.rows.map((row) => row.name)).toEqual(EVERY_MIGRATION);
    await Promise.all(replicas.map((replica) => replica.close()));
  });

  it("refuse a database that a newer release migrated, saying so", async () => {
    const target = await postgres();
    const first = new LedgerConnection(target, { log: logger });
    await first.open();
    await sql`INSERT INTO ledger_migrations (name, timestamp) VALUES ('9999-future', now()::text)`.execute(
      first.db,
    );
    await first.close();
    const older = new LedgerConnection(target, { log: logger });
    await expect(older.open()).rejects.toThrow(
      /migrated by a newer release of the bot \(migrations 9999-future/,
    );
    await older.close();
  });

  it("run by `npm run migrate` alone, with nothing but the database configured", async () => {
    const target = await postgres();
    if (target.kind !== "postgres") throw new Error("unreachable");
    const migrate = spawn(process.execPath, ["--import", "tsx", "src/migrate.ts"], {
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: target.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    migrate.stdout?.on("data", (chunk) => (output += String(chunk)));
    const code = await new Promise((resolve) => migrate.once("exit", resolve));
    expect(code).toBe(0);
    expect(output).toContain(
      '"applied":["0001-purchases","0002-payments","0003-money-rules","0004-purchase-versions","0005-esewa","0006-payment-offers","0007-provider-balance","0008-reconciliation","0009-offer-lifecycle","0010-payment-anomalies","0011-payment-payer","0012-documented-states","0013-customer-proved","0014-menu-message","0015-refund-lease","0016-money-guards","0017-fonepay"]',
    );
  });
});

describe("the embedded ledger's folder", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "topup-data-"));
  let holder: ChildProcess | undefined;
  afterAll(() => {
    holder?.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves one process: a second one fails at start with a clear message", async () => {
    // Another process runs on the folder (npm run migrate holds it while it migrates; this
    // one holds it as the bot would).
    holder = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import { LedgerConnection } from "./src/adapters/ledger/connection.ts";
         const log = { debug() {}, info() {}, warn() {}, error() {} };
         await new LedgerConnection({ kind: "embedded", dataDir: ${JSON.stringify(dataDir)} }, { log }).open();
         console.log("ready");
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      holder?.stdout?.on("data", (chunk) => String(chunk).includes("ready") && resolve());
      holder?.once("exit", () => reject(new Error("the holder exited")));
    });
    const second = new LedgerConnection({ kind: "embedded", dataDir }, { log: logger });
    await expect(second.open()).rejects.toThrow(/in use by another bot process \(pid \d+\)/);

    // A holder that died leaves its lock behind: the next start takes the folder over.
    const exited = new Promise((resolve) => holder?.once("exit", resolve));
    holder.kill("SIGKILL");
    await exited;
    const third = new LedgerConnection({ kind: "embedded", dataDir }, { log: logger });
    await third.open();
    expect(third.healthy).toBe(true);
    await third.close();
  }, 60_000);
});
