// The ledger's database: PostgreSQL through one pg pool (DATABASE_URL), or the embedded PGlite
// when none is configured. Either way migrated before use, watched, and made to fail fast
// while it is away, logged once when lost and once when back.
import { setTimeout as sleep } from "node:timers/promises";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Log } from "../../domain/ports.js";
import { Reachability, reasonOf } from "../reachability.js";
import { embeddedDialect, lockDataDir } from "./embedded.js";
import { migrate } from "./migrate.js";
import type { LedgerTables } from "./schema.js";

export type LedgerTarget =
  | { kind: "postgres"; url: string; poolSize: number; statementTimeoutMs: number }
  | { kind: "embedded"; dataDir: string | null };

/** Thrown at once, without asking the database, while it is known to be away. */
class LedgerUnavailableError extends Error {
  constructor(reason: string) {
    super(`the ledger's database is unavailable: ${reason}`);
    this.name = "LedgerUnavailableError";
  }
}

/**
 * SQLSTATE classes and codes, and client messages, that say "the server could not be reached or
 * went away". Not pg's "timeout exceeded when trying to connect": that is the pool's own queue
 * being full (a burst), not an outage. 25006 (read only): a standby after a failover, which
 * reads but writes nothing until the primary is reached: away for the ledger.
 */
const UNREACHABLE_CODES = /^(08|57P0[1-4]|53300|57014|25006)/;
const UNREACHABLE_MESSAGES =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|Connection terminated|connection timeout|Query read timeout|Client has encountered a connection error|the database system is|terminating connection|PGlite is clos(ed|ing)/i;

/**
 * SQLSTATE classes and codes that say "the database answered and refused this": a data
 * exception (22: a value it cannot take), an integrity constraint (23: a check, a unique key, a
 * foreign key, not null) and the ledger's own triggers (LG001...: a money rule). Asking again
 * gets the same answer.
 */
const REFUSED_CODES = /^(22|23|LG)/;

export interface LedgerOptions {
  log: Log;
  /** How often the database is probed (also while it is down, to notice it is back). */
  probeMs?: number;
}

export class LedgerConnection {
  readonly db: Kysely<LedgerTables>;
  private readonly reach: Reachability;
  private closing = false;
  private releaseDataDir: () => Promise<void> = async () => undefined;

  constructor(
    readonly target: LedgerTarget,
    private readonly options: LedgerOptions,
  ) {
    this.reach = new Reachability("the ledger's database", options.log);
    if (target.kind === "embedded") {
      this.db = new Kysely<LedgerTables>({ dialect: embeddedDialect(target.dataDir) });
      return;
    }
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize,
      statement_timeout: target.statementTimeoutMs,
      // A server that stopped answering (paused, partitioned) never ends a statement itself.
      query_timeout: target.statementTimeoutMs + 1_000,
      // Also how long a burst's statement may wait for a free connection of the pool.
      connectionTimeoutMillis: target.statementTimeoutMs + 1_000,
      keepAlive: true,
      application_name: "topup-bot",
    });
    // A lost connection is an `error` event, on the pool for an idle client and on the client
    // itself while a query holds it: without a listener either one crashes the process.
    pool.on("error", (error) => this.reach.mark(false, error));
    pool.on("connect", (client) => client.on("error", (error) => this.reach.mark(false, error)));
    this.db = new Kysely<LedgerTables>({ dialect: new PostgresDialect({ pool }) });
  }

  /**
   * Connects (waiting for the server however long it takes, said once), applies the
   * migrations and starts watching.
   */
  async open(): Promise<void> {
    // One in memory is the playground's or a test's: nobody runs that in production.
    if (this.target.kind === "embedded" && this.target.dataDir !== null) {
      const { dataDir } = this.target;
      this.releaseDataDir = await lockDataDir(dataDir, () =>
        this.options.log.error(
          { dataDir },
          "another process took the embedded ledger's folder over: stop one of them",
        ),
      );
      this.options.log.warn(
        { dataDir: this.target.dataDir },
        "embedded ledger (PGlite): for a single instance only; production runs PostgreSQL (DATABASE_URL)",
      );
    }
    let waiting = false;
    for (;;) {
      try {
        const applied = await migrate(this.db);
        if (applied.length > 0) this.options.log.info({ applied }, "ledger migrated");
        break;
      } catch (error) {
        if (!isUnreachable(error) || this.closing) throw error;
        if (!waiting) {
          this.options.log.error({ reason: reasonOf(error) }, "waiting for the ledger's database");
        }
        waiting = true;
        await sleep(1_000);
      }
    }
    this.reach.mark(true);
    this.reach.watch(() => this.probe(), this.options.probeMs ?? 1_000);
  }

  /** Answers, and takes writes: a read-only server (a standby) is away for the ledger. */
  private async probe(): Promise<void> {
    const { rows } = await sql<{
      readOnly: string;
    }>`SELECT current_setting('transaction_read_only') AS "readOnly"`.execute(this.db);
    if (rows[0]?.readOnly === "on") {
      throw Object.assign(new Error("the database takes no writes (read only: a standby?)"), {
        code: "25006",
      });
    }
  }

  /** True while the database answers. */
  get healthy(): boolean {
    return this.reach.healthy;
  }

  /**
   * Runs one piece of work, at once refused while the database is away; a failure that says
   * the database went away marks it so (and is rethrown as LedgerUnavailableError).
   */
  async run<T>(work: (db: Kysely<LedgerTables>) => Promise<T>): Promise<T> {
    if (this.reach.away) throw new LedgerUnavailableError("waiting for it to come back");
    const started = Date.now();
    try {
      return await work(this.db);
    } catch (error) {
      if (!isUnreachable(error)) throw error;
      // A failure of work begun before the database came back says nothing new.
      if (started >= this.reach.upSince) this.reach.mark(false, error);
      throw new LedgerUnavailableError(reasonOf(error));
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.reach.stop();
    await this.db.destroy().catch(() => undefined);
    await this.releaseDataDir();
  }
}

/**
 * What a refusal was, for the log and the person who checks it: its SQLSTATE and the
 * constraint's name (never the row); null when the error is no refusal (unreachable, or
 * anything else: a serialization failure, the pool's queue, a bug), which may go better later.
 */
export function refusalOf(error: unknown): string | null {
  if (!(error instanceof Error) || isUnreachable(error)) return null;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (typeof code !== "string" || !REFUSED_CODES.test(code)) return null;
  return typeof constraint === "string" ? `SQLSTATE ${code} (${constraint})` : `SQLSTATE ${code}`;
}

export function isUnreachable(error: unknown): boolean {
  if (error instanceof LedgerUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && UNREACHABLE_CODES.test(code)) return true;
  return UNREACHABLE_MESSAGES.test(error.message);
}
