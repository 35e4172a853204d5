// The embedded ledger: PostgreSQL in this process (PGlite), for a single instance that needs
// nothing installed. Loaded only when DATABASE_URL is unset: it holds about 250 MB of
// WebAssembly memory even when idle. The bundle leaves PGlite a package (its WebAssembly and
// data files sit beside its own modules).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  type DatabaseConnection,
  type Driver,
  PGliteDialect,
  type TransactionSettings,
} from "kysely";

/** Thrown when another process already runs on the same DATA_DIR. */
class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another bot process (pid ${pid}): the embedded ledger ` +
        "serves one process only; stop it, or set DATABASE_URL to share a PostgreSQL server",
    );
    this.name = "DataDirInUseError";
  }
}

/**
 * PGlite is imported when the ledger is first used, never by a bot that has DATABASE_URL.
 * `null`: in memory (the playground); otherwise the folder that keeps the ledger's files.
 */
export function embeddedDialect(dataDir: string | null): PGliteDialect {
  return new SerialPGliteDialect({
    pglite: async () => {
      const { PGlite } = await import("@electric-sql/pglite");
      return dataDir === null ? new PGlite() : new PGlite(join(dataDir, "ledger"));
    },
  });
}

/**
 * One process per data folder: a lock file with the holder's pid. A file left by a process
 * that died (or by this very pid, as in a restarted container) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "ledger.lock");
  const mine = `${process.pid}@${hostname()}`;
  for (;;) {
    try {
      writeFileSync(file, mine, { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readFileSync(file, "utf8").trim();
      if (holderAlive(holder)) throw new DataDirInUseError(dataDir, holder.split("@")[0] ?? "");
      rmSync(file, { force: true });
    }
  }
  return () => {
    try {
      if (readFileSync(file, "utf8").trim() === mine) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
  };
}

function holderAlive(holder: string): boolean {
  const [pid, host] = holder.split("@");
  if (!pid || Number(pid) === process.pid || host !== hostname()) return false;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
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
