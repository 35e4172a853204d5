// The embedded ledger: PostgreSQL in this process (PGlite), for a single instance that needs
// nothing installed. Loaded only when DATABASE_URL is unset: it holds about 250 MB of
// WebAssembly memory even when idle. The bundle leaves PGlite a package (its WebAssembly and
// data files sit beside its own modules).
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type DatabaseConnection,
  type Driver,
  PGliteDialect,
  type TransactionSettings,
} from "kysely";
import { lockFolder } from "../folder-lock.js";

/**
 * PostgreSQL's memory settings for one small instance, on top of PGlite's own start parameters.
 * Its defaults are a server's: 128 MB of shared buffers, which PGlite's WebAssembly memory
 * touches at start (about 130 MB of RSS, bench/RESULTS.md); 16 MB hold a small ledger's tables
 * and indexes. A statement sorts or hashes in 1 MB before it spills to a file (the bot's
 * statements read a purchase or a page of them); an index build (a migration) in 8 MB.
 */
const SMALL_INSTANCE = [
  ["shared_buffers", "16MB"],
  ["wal_buffers", "512kB"],
  ["work_mem", "1MB"],
  ["temp_buffers", "1MB"],
  ["maintenance_work_mem", "8MB"],
].flatMap(([name, value]) => ["-c", `${name}=${value}`]);

/**
 * PGlite is imported when the ledger is first used, never by a bot that has DATABASE_URL.
 * `null`: in memory (the playground); otherwise the folder that keeps the ledger's files.
 */
export function embeddedDialect(dataDir: string | null): PGliteDialect {
  return new SerialPGliteDialect({
    pglite: async () => {
      const { PGlite } = await import("@electric-sql/pglite");
      const options = { startParams: [...PGlite.defaultStartParams, ...SMALL_INSTANCE] };
      if (dataDir === null) return new PGlite(options);
      const folder = join(dataDir, "ledger");
      if (!existsSync(join(folder, "PG_VERSION"))) await createApart(folder);
      return new PGlite(folder, options);
    },
  });
}

/**
 * A new database is made in a short-lived process of its own: PGlite's initdb leaves about
 * 500 MB of WebAssembly memory behind that the bot would otherwise keep for its whole life
 * (800 MB instead of 300 MB).
 */
async function createApart(folder: string): Promise<void> {
  // Imported here: a bot on PostgreSQL never loads it (about 1 MB of idle memory).
  const { spawn } = await import("node:child_process");
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      "const { PGlite } = await import(process.env.PGLITE_MODULE);" +
        "const db = new PGlite(process.env.LEDGER_FOLDER); await db.waitReady; await db.close();",
    ],
    {
      env: {
        ...process.env,
        PGLITE_MODULE: import.meta.resolve("@electric-sql/pglite"),
        LEDGER_FOLDER: folder,
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`could not create the embedded ledger in ${folder}`);
}

/**
 * One process per data folder (folder-lock.ts): its lock file names the holder; a second process
 * refuses to start, and a lock left by one that died is taken over. Resolves to its release.
 */
export async function lockDataDir(
  dataDir: string,
  onLost: () => void,
): Promise<() => Promise<void>> {
  const lock = await lockFolder(dataDir, "ledger.lock", {
    inUse: (folder, pid) =>
      `DATA_DIR ${folder} is in use by another bot process (pid ${pid}): the embedded ledger ` +
      "serves one process only; stop it, or set DATABASE_URL to share a PostgreSQL server",
    onLost,
  });
  return () => lock.release();
}

/**
 * Kysely's PGlite driver shares one connection between every caller, so a query made while
 * another caller's transaction is open would run inside it: callers take turns instead.
 */
class SerialPGliteDialect extends PGliteDialect {
  override createDriver(): Driver {
    return new SerialDriver(super.createDriver());
  }
}

class SerialDriver implements Driver {
  private turn: Promise<void> = Promise.resolve();
  private endTurn: (() => void) | undefined;

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.turn;
    let endTurn: () => void = () => undefined;
    this.turn = new Promise<void>((resolve) => {
      endTurn = resolve;
    });
    await previous;
    this.endTurn = endTurn;
    return this.inner.acquireConnection();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection(connection);
    const endTurn = this.endTurn;
    this.endTurn = undefined;
    endTurn?.();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection) {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection) {
    return this.inner.rollbackTransaction(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
