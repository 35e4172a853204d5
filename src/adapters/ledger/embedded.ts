// The embedded ledger: PostgreSQL in this process (PGlite), for a single instance that needs
// nothing installed. Loaded only when DATABASE_URL is unset: it holds about 250 MB of
// WebAssembly memory even when idle. The bundle leaves PGlite a package (its WebAssembly and
// data files sit beside its own modules).
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
      if (dataDir === null) return new PGlite();
      const folder = join(dataDir, "ledger");
      if (!existsSync(join(folder, "PG_VERSION"))) await createApart(folder);
      return new PGlite(folder);
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
