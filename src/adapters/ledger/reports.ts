// Finance reports out of the ledger: the numbers are counted and summed by PostgreSQL (numeric,
// exact, read as text), and the period's purchases are read a page at a time by keyset over
// purchases_by_time (created_at, id), so that no report holds the table in memory.
import { type RawBuilder, sql } from "kysely";
import type { ServiceKind } from "../../domain/model.js";
import { SERVICE_KINDS } from "../../domain/model.js";
import {
  BEST_SELLERS,
  type DaySales,
  REPORT_OUTCOMES,
  type ReportOutcome,
  type ReportPeriod,
  type ReportRow,
  type ReportSource,
  type ReportSummary,
  type Totals,
} from "../../domain/report.js";
import type { LedgerConnection } from "./connection.js";

/** The one place that says which phases count as which outcome (see domain/report.ts). */
const OUTCOME = sql<ReportOutcome>`CASE
  WHEN phase = 'charged' THEN 'charged'
  WHEN phase = 'not-charged' AND reason = 'declined' THEN 'declined'
  WHEN phase = 'not-charged' THEN 'not-charged'
  WHEN phase IN ('requested', 'unknown') THEN 'unknown'
  ELSE 'pending' END`;
/** What was charged, as the provider stated it; the price where no transaction says. */
const CHARGED = sql`coalesce(txn_amount, price)`;
const AMOUNT = sql`CASE WHEN phase = 'charged' THEN ${CHARGED} ELSE price END`;

type TotalsRow = { count: number; sum: string | null };

const totals = (row: TotalsRow | undefined): Totals => ({
  count: row?.count ?? 0,
  sum: row?.sum ?? "0",
});

export class LedgerReports implements ReportSource {
  /**
   * @param timeZone the provider's zone: the days of a period are its calendar days
   * @param pageSize purchases read per query by `rows`
   */
  constructor(
    private readonly ledger: Pick<LedgerConnection, "run">,
    private readonly timeZone: string,
    private readonly pageSize = 1_000,
  ) {}

  /** Read in one snapshot, so that the numbers agree with each other. */
  summary(period: ReportPeriod): Promise<ReportSummary> {
    const within = this.within(period);
    return this.ledger.run((db) =>
      db
        .transaction()
        .setIsolationLevel("repeatable read")
        .setAccessMode("read only")
        .execute(async (tx) => {
          const outcomes = await sql<TotalsRow & { outcome: ReportOutcome }>`
            SELECT ${OUTCOME} AS outcome, count(*)::int AS count, sum(${AMOUNT})::text AS sum
            FROM purchases WHERE ${within} GROUP BY 1`.execute(tx);
          const services = await sql<TotalsRow & { service: ServiceKind }>`
            SELECT service, count(*)::int AS count, sum(${CHARGED})::text AS sum
            FROM purchases WHERE phase = 'charged' AND ${within} GROUP BY service`.execute(tx);
          const bouquets = await sql<TotalsRow & { code: string; name: string }>`
            SELECT bouquet_code AS code, bouquet_name AS name, count(*)::int AS count,
              sum(${CHARGED})::text AS sum
            FROM purchases WHERE phase = 'charged' AND ${within}
            GROUP BY bouquet_code, bouquet_name
            ORDER BY count(*) DESC, sum(${CHARGED}) DESC, bouquet_code, bouquet_name
            LIMIT ${BEST_SELLERS}`.execute(tx);
          // Open is exactly "due_at is set" (a CHECK holds it), which purchases_due indexes.
          const open = await sql<TotalsRow>`
            SELECT count(*)::int AS count, sum(price)::text AS sum
            FROM purchases WHERE due_at IS NOT NULL`.execute(tx);
          const byOutcome = new Map(outcomes.rows.map((row) => [row.outcome, row]));
          const byService = new Map(services.rows.map((row) => [row.service, row]));
          return {
            outcomes: Object.fromEntries(
              REPORT_OUTCOMES.map((outcome) => [outcome, totals(byOutcome.get(outcome))]),
            ) as Record<ReportOutcome, Totals>,
            services: Object.fromEntries(
              SERVICE_KINDS.map((service) => [service, totals(byService.get(service))]),
            ) as Record<ServiceKind, Totals>,
            bouquets: bouquets.rows.map((row) => ({
              code: row.code,
              name: row.name,
              ...totals(row),
            })),
            open: totals(open.rows[0]),
          };
        }),
    );
  }

  async *rows(period: ReportPeriod): AsyncIterable<ReportRow> {
    const within = this.within(period);
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const from = after;
      const page = await this.ledger.run((db) =>
        db
          .selectFrom("purchases")
          .select([
            "id",
            "buyer",
            "customer_id",
            "service",
            "connection_id",
            "bouquet_code",
            "bouquet_name",
            "checkout_id",
            "txn_id",
            "reference",
            "created_at",
            OUTCOME.as("outcome"),
            sql<string>`(${AMOUNT})::text`.as("amount"),
            // The cursor as the database has it: a Date would drop the microseconds.
            sql<string>`created_at::text`.as("cursor"),
          ])
          .where(within)
          .$if(from !== undefined, (query) =>
            query.where(
              sql<boolean>`(created_at, id) > (${from?.at}::timestamptz, ${from?.id}::text)`,
            ),
          )
          .orderBy("created_at")
          .orderBy("id")
          .limit(this.pageSize)
          .execute(),
      );
      for (const row of page) {
        yield {
          id: row.id,
          at: new Date(row.created_at).getTime(),
          buyer: Number(row.buyer),
          customerId: row.customer_id,
          service: row.service as ServiceKind,
          connectionId: row.connection_id,
          bouquetCode: row.bouquet_code,
          bouquetName: row.bouquet_name,
          amount: row.amount,
          checkoutId: row.checkout_id,
          txnId: row.txn_id,
          reference: row.reference,
          outcome: row.outcome,
        };
      }
      const last = page.at(-1);
      if (!last || page.length < this.pageSize) return;
      after = { at: last.cursor, id: last.id };
    }
  }

  async dailySales(period: ReportPeriod): Promise<DaySales[]> {
    const { rows } = await this.ledger.run((db) =>
      sql<DaySales>`
        SELECT to_char(d, 'YYYY-MM-DD') AS day, coalesce(s.sum, 0)::text AS sum
        FROM generate_series(${period.first}::date::timestamp, ${period.last}::date::timestamp,
          interval '1 day') AS d
        LEFT JOIN (
          SELECT (created_at AT TIME ZONE ${this.timeZone}::text)::date AS day, sum(${CHARGED}) AS sum
          FROM purchases WHERE phase = 'charged' AND ${this.within(period)} GROUP BY 1
        ) AS s ON s.day = d::date
        ORDER BY d`.execute(db),
    );
    return rows;
  }

  /** Created on one of the period's days in the provider's zone (bounds the index can use). */
  private within(period: ReportPeriod): RawBuilder<boolean> {
    const zone = sql`${this.timeZone}::text`;
    return sql<boolean>`created_at >= (${period.first}::date::timestamp AT TIME ZONE ${zone})
      AND created_at < ((${period.last}::date + 1)::timestamp AT TIME ZONE ${zone})`;
  }
}
