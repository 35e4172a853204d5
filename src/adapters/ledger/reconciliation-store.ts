// The daily reconciliation's runs and findings in the ledger (migration 0008). A run covers a
// day or a range of days; the instance running it holds a lease, writes each purchase's
// findings with its place in one transaction, and loses the run (the write changes nothing)
// once another instance took it over after the lease lapsed.
import { type Kysely, sql } from "kysely";
import type {
  Finding,
  FindingKind,
  ReconciliationLedger,
  ReconciliationRun,
  StoredFinding,
} from "../../domain/reconciliation-runs.js";
import type { LedgerConnection } from "./connection.js";
import type { LedgerTables } from "./schema.js";

interface RunRow {
  id: string;
  first_day: string;
  last_day: string;
  started_by: string | null;
  resume_after: string | null;
  purchases: number;
}

interface FindingRow {
  id: string;
  day: string;
  purchase_id: string;
  kind: Finding["kind"];
  outside_ids: string;
  provider_txns: string;
  ledger_minor: string | null;
  outside_minor: string | null;
  next_step: string;
}

/** Where a page of findings ends: the next one starts after it. */
interface Place {
  day: string;
  id: string;
}

const after = (place: Place | null) =>
  place === null ? sql`true` : sql`(day, id) > (${place.day}::date, ${place.id}::bigint)`;

/** Findings read at a time for the report's file. */
const PAGE = 500;

const minor = (value: string | null) => (value === null ? null : BigInt(value));
const text = (value: bigint | null) => (value === null ? null : value.toString());

const runOf = (row: RunRow): ReconciliationRun => ({
  id: row.id,
  firstDay: row.first_day,
  lastDay: row.last_day,
  startedBy: row.started_by === null ? null : Number(row.started_by),
  resumeAfter: row.resume_after,
  purchases: row.purchases,
});

const findingOf = (row: FindingRow): StoredFinding => ({
  id: row.id,
  day: row.day,
  purchaseId: row.purchase_id,
  kind: row.kind,
  outsideIds: row.outside_ids,
  providerTxns: row.provider_txns,
  ledgerMinor: minor(row.ledger_minor),
  outsideMinor: minor(row.outside_minor),
  nextStep: row.next_step,
});

const RUN_COLUMNS = sql`id::text AS id, to_char(first_day, 'YYYY-MM-DD') AS first_day,
  to_char(last_day, 'YYYY-MM-DD') AS last_day, started_by::text AS started_by, resume_after,
  purchases`;
const FINDING_COLUMNS = sql`id::text AS id, to_char(day, 'YYYY-MM-DD') AS day, purchase_id, kind,
  outside_ids, provider_txns, ledger_minor::text AS ledger_minor,
  outside_minor::text AS outside_minor, next_step`;

export class ReconciliationStore implements ReconciliationLedger {
  constructor(private readonly ledger: LedgerConnection) {}

  async start(
    days: { first: string; last: string },
    startedBy: number | null,
    holder: string,
    leaseMs: number,
  ): Promise<ReconciliationRun | null> {
    const { rows } = await this.ledger.run((db) =>
      sql<RunRow>`
        INSERT INTO reconciliation_runs
          (first_day, last_day, scheduled, started_by, held_by, lease_until)
        VALUES (${days.first}::date, ${days.last}::date, ${startedBy === null}, ${startedBy},
          ${holder}, clock_timestamp() + ${leaseMs} * interval '1 millisecond')
        ON CONFLICT (first_day) WHERE scheduled DO NOTHING
        RETURNING ${RUN_COLUMNS}`.execute(db),
    );
    return rows[0] ? runOf(rows[0]) : null;
  }

  async takeOver(
    holder: string,
    leaseMs: number,
    working: readonly string[],
  ): Promise<ReconciliationRun | null> {
    const { rows } = await this.ledger.run((db) =>
      sql<RunRow>`
        UPDATE reconciliation_runs
        SET held_by = ${holder}, lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
        WHERE id = (SELECT id FROM reconciliation_runs
                    WHERE finished_at IS NULL AND lease_until <= clock_timestamp()
                      AND NOT (id = ANY (${[...working]}::bigint[]))
                    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${RUN_COLUMNS}`.execute(db),
    );
    return rows[0] ? runOf(rows[0]) : null;
  }

  async progress(
    run: { id: string; holder: string; leaseMs: number },
    day: string,
    purchaseId: string,
    findings: readonly Finding[],
  ): Promise<boolean> {
    return this.ledger.run((db) =>
      db.transaction().execute(async (trx) => {
        const { rows } = await sql`
          UPDATE reconciliation_runs
          SET resume_after = ${`${day}/${purchaseId}`}, purchases = purchases + 1,
            lease_until = clock_timestamp() + ${run.leaseMs} * interval '1 millisecond'
          WHERE id = ${run.id}::bigint AND held_by = ${run.holder} AND finished_at IS NULL
          RETURNING id`.execute(trx);
        if (rows.length === 0) return false;
        // A party asked now closes this purchase's "could not be asked" from an earlier run.
        const stillUnasked = findings
          .filter((f) => f.kind === "not-asked")
          .map((f) => f.outsideIds);
        await sql`
          UPDATE reconciliation_findings
          SET status = 'resolved', resolved_at = clock_timestamp(),
            note = ${`asked again by run ${run.id}`}
          WHERE day = ${day}::date AND purchase_id = ${purchaseId} AND kind = 'not-asked'
            AND status = 'open'
            AND NOT (outside_ids = ANY (${stillUnasked}::text[]))`.execute(trx);
        for (const f of findings) {
          if (f.settled !== undefined) {
            await this.settle(trx, run.id, day, f, f.settled);
            continue;
          }
          await sql`
            INSERT INTO reconciliation_findings
              (run_id, day, purchase_id, kind, outside_ids, provider_txns, ledger_minor,
               outside_minor, next_step)
            SELECT ${run.id}::bigint, ${day}::date, ${f.purchaseId}, ${f.kind}, ${f.outsideIds},
              ${f.providerTxns}, ${text(f.ledgerMinor)}::bigint, ${text(f.outsideMinor)}::bigint,
              ${f.nextStep}
            -- An admin's resolution stands: the same finding found again is not reopened.
            WHERE NOT EXISTS (SELECT 1 FROM reconciliation_findings f
                              WHERE day = ${day}::date AND purchase_id = ${f.purchaseId}
                                AND kind = ${f.kind} AND outside_ids = ${f.outsideIds}
                                AND resolved_by IS NOT NULL)
            ON CONFLICT (day, purchase_id, kind, outside_ids) WHERE status = 'open'
            DO NOTHING`.execute(trx);
        }
        return true;
      }),
    );
  }

  /**
   * A finding the bot settled itself: the same one still open is closed as settled with the
   * note, else it is kept as settled (once: a run again adds none).
   */
  private async settle(
    trx: Kysely<LedgerTables>,
    runId: string,
    day: string,
    f: Finding,
    note: string,
  ): Promise<void> {
    const same = sql`day = ${day}::date AND purchase_id = ${f.purchaseId} AND kind = ${f.kind}
      AND outside_ids = ${f.outsideIds}`;
    const { rows } = await sql`
      UPDATE reconciliation_findings
      SET status = 'settled', note = ${note.slice(0, 500)}, resolved_at = clock_timestamp(),
        provider_txns = ${f.providerTxns}
      WHERE ${same} AND status = 'open' RETURNING id`.execute(trx);
    if (rows.length > 0) return;
    await sql`
      INSERT INTO reconciliation_findings
        (run_id, day, purchase_id, kind, outside_ids, provider_txns, ledger_minor, outside_minor,
         next_step, status, note, resolved_at)
      SELECT ${runId}::bigint, ${day}::date, ${f.purchaseId}, ${f.kind}, ${f.outsideIds},
        ${f.providerTxns}, ${text(f.ledgerMinor)}::bigint, ${text(f.outsideMinor)}::bigint,
        ${f.nextStep}, 'settled', ${note.slice(0, 500)}, clock_timestamp()
      WHERE NOT EXISTS (SELECT 1 FROM reconciliation_findings
                        WHERE ${same} AND status = 'settled')`.execute(trx);
  }

  async leave(run: { id: string; holder: string }): Promise<void> {
    await this.ledger.run((db) =>
      sql`UPDATE reconciliation_runs SET lease_until = clock_timestamp()
        WHERE id = ${run.id}::bigint AND held_by = ${run.holder} AND finished_at IS NULL`.execute(
        db,
      ),
    );
  }

  async finish(run: { id: string; holder: string }): Promise<number | null> {
    const { rows } = await this.ledger.run((db) =>
      sql<{ purchases: number }>`
        UPDATE reconciliation_runs SET finished_at = clock_timestamp(), lease_until = NULL
        WHERE id = ${run.id}::bigint AND held_by = ${run.holder} AND finished_at IS NULL
        RETURNING purchases`.execute(db),
    );
    return rows[0]?.purchases ?? null;
  }

  async claimReport(runId: string): Promise<boolean> {
    const { rows } = await this.ledger.run((db) =>
      sql`UPDATE reconciliation_runs SET reported_at = clock_timestamp()
        WHERE id = ${runId}::bigint AND reported_at IS NULL RETURNING id`.execute(db),
    );
    return rows.length === 1;
  }

  async unclaimReport(runId: string): Promise<void> {
    await this.ledger.run((db) =>
      sql`UPDATE reconciliation_runs SET reported_at = NULL WHERE id = ${runId}::bigint`.execute(
        db,
      ),
    );
  }

  async unreported(): Promise<ReconciliationRun[]> {
    const { rows } = await this.ledger.run((db) =>
      sql<RunRow>`SELECT ${RUN_COLUMNS} FROM reconciliation_runs
        WHERE finished_at IS NOT NULL AND reported_at IS NULL ORDER BY reconciliation_runs.id`.execute(
        db,
      ),
    );
    return rows.map(runOf);
  }

  async openCounts(first: string, last: string): Promise<Map<FindingKind, number>> {
    const { rows } = await this.ledger.run((db) =>
      sql<{ kind: FindingKind; n: number }>`SELECT kind, count(*)::int AS n
        FROM reconciliation_findings f
        WHERE status = 'open' AND day BETWEEN ${first}::date AND ${last}::date
        GROUP BY kind ORDER BY kind`.execute(db),
    );
    return new Map(rows.map((row) => [row.kind, row.n]));
  }

  async settledCount(first: string, last: string): Promise<number> {
    const { rows } = await this.ledger.run((db) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM reconciliation_findings
        WHERE status = 'settled' AND day BETWEEN ${first}::date AND ${last}::date`.execute(db),
    );
    return rows[0]?.n ?? 0;
  }

  async openBefore(
    day: string,
    listed: number,
  ): Promise<{ count: number; first: StoredFinding[] }> {
    return this.ledger.run(async (db) => {
      const { rows: counted } = await sql<{ n: number }>`SELECT count(*)::int AS n
        FROM reconciliation_findings WHERE status = 'open' AND day < ${day}::date`.execute(db);
      const { rows } =
        await sql<FindingRow>`SELECT ${FINDING_COLUMNS} FROM reconciliation_findings f
        WHERE status = 'open' AND day < ${day}::date ORDER BY f.day, f.id LIMIT ${listed}`.execute(
          db,
        );
      return { count: counted[0]?.n ?? 0, first: rows.map(findingOf) };
    });
  }

  async *openUpTo(last: string): AsyncIterable<StoredFinding> {
    let from: Place | null = null;
    for (;;) {
      const { rows }: { rows: FindingRow[] } = await this.ledger.run((db) =>
        sql<FindingRow>`SELECT ${FINDING_COLUMNS} FROM reconciliation_findings f
          WHERE status = 'open' AND day <= ${last}::date
            AND ${after(from)}
          ORDER BY f.day, f.id LIMIT ${PAGE}`.execute(db),
      );
      yield* rows.map(findingOf);
      const end = rows.at(-1);
      if (!end || rows.length < PAGE) return;
      from = { day: end.day, id: end.id };
    }
  }

  async resolve(id: string, by: number, note: string): Promise<boolean> {
    if (!/^\d{1,18}$/.test(id)) return false;
    const { rows } = await this.ledger.run((db) =>
      sql`UPDATE reconciliation_findings
        SET status = 'resolved', resolved_by = ${by}, note = ${note}, resolved_at = clock_timestamp()
        WHERE id = ${id}::bigint AND status = 'open' RETURNING id`.execute(db),
    );
    return rows.length === 1;
  }
}
