// Finance reports out of the ledger: the numbers are counted and summed by PostgreSQL (numeric,
// exact, read as text), and the period's purchases are read a page at a time by keyset over
// purchases_by_time (created_at, id), so that no report holds the table in memory. Payments
// are summed in their minor units (bigint, exact), per currency, and turned into amounts here.
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { ServiceKind } from "../../domain/model.js";
import { SERVICE_KINDS } from "../../domain/model.js";
import type { Amount } from "../../domain/money.js";
import { fromMinorUnits, minorUnitDigits } from "../../domain/payment.js";
import type { PaymentMethod } from "../../domain/purchase.js";
import { OUTCOME_OF_PHASE } from "../../domain/purchase-machine.js";
import {
  BEST_SELLERS,
  type DaySales,
  METHOD_OUTCOMES,
  type MethodOutcome,
  type MethodTotals,
  type PaymentSummary,
  type PaymentTotals,
  REPORT_OUTCOMES,
  type RefundState,
  type ReportOutcome,
  type ReportPeriod,
  type ReportRow,
  type ReportSource,
  type ReportSummary,
  type RowPayment,
  type Totals,
} from "../../domain/report.js";
import type { LedgerConnection } from "./connection.js";
import type { LedgerTables } from "./schema.js";

/** The machine's `outcomeOf` in SQL, built from its own table (domain/purchase-machine.ts). */
const OUTCOME = sql<ReportOutcome>`CASE
  WHEN phase = 'not-charged' AND reason = 'declined' THEN 'declined'
  ${sql.join(
    Object.entries(OUTCOME_OF_PHASE).map(
      ([phase, outcome]) => sql`WHEN phase = ${sql.lit(phase)} THEN ${sql.lit(outcome)}`,
    ),
    sql` `,
  )} END`;
/** Not finished yet (domain/purchase.ts); a refund due is finished as a top-up. */
const OPEN_PHASES = sql.raw(
  `'created', 'token-taken', 'requested', 'unknown', 'awaiting-payment', 'paid'`,
);
/** What was charged, as the provider stated it; the price where no transaction says. */
const CHARGED = sql`coalesce(txn_amount, price)`;
const AMOUNT = sql`CASE WHEN phase = 'charged' THEN ${CHARGED} ELSE price END`;

type TotalsRow = { count: number; sum: string | null };

const totals = (row: TotalsRow | undefined): Totals => ({
  count: row?.count ?? 0,
  sum: row?.sum ?? "0",
});

type MethodRow = TotalsRow & { method: PaymentMethod | null; outcome: MethodOutcome };

/** One entry per method, in the order the rows come, every outcome of it counted. */
function methodTotals(rows: MethodRow[]): MethodTotals[] {
  const methods = [...new Set(rows.map((row) => row.method))];
  return methods.map((method) => {
    const of = rows.filter((row) => row.method === method);
    const outcome = (name: MethodOutcome) => totals(of.find((row) => row.outcome === name));
    return {
      method,
      outcomes: Object.fromEntries(METHOD_OUTCOMES.map((name) => [name, outcome(name)])) as Record<
        MethodOutcome,
        Totals
      >,
    };
  });
}

/** The lines of the payments' summary that are payments counted per currency. */
type PaymentMeasure = Exclude<keyof PaymentSummary, "chargedUnpaid">;
type MinorRow = { measure: PaymentMeasure; currency: string; count: number; minor: string };

const digitsByCurrency = new Map<string, number | null>();

/** Minor units (bigint as text) back to the amount they stand for, exactly. */
function amountOf(minor: string, currency: string): Amount {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    digits = minorUnitDigits(currency);
    digitsByCurrency.set(currency, digits);
  }
  const units = Number(minor);
  // Invoices are made only in a currency the platform knows (config.ts); a sum of minor units
  // beyond 2^53 would be 90 trillion NPR. Either would make a wrong amount: say so instead.
  if (digits === null || !Number.isSafeInteger(units)) {
    throw new Error(`${minor} minor units of ${currency}: not an amount this report can state`);
  }
  return fromMinorUnits(units, digits);
}

/** A purchase's payment columns, and those of its applied payment when there is one. */
interface PaymentColumns {
  payment_method: string | null;
  payment_charge_id: string | null;
  payment_provider_charge_id: string | null;
  paid_currency: string | null;
  paid_minor: string | null;
  refund: string | null;
}

function rowPayment(row: PaymentColumns): RowPayment | null {
  if (row.payment_method === null) return null;
  return {
    method: row.payment_method as PaymentMethod,
    paid:
      row.paid_minor === null || row.paid_currency === null
        ? null
        : amountOf(row.paid_minor, row.paid_currency),
    chargeId: row.payment_charge_id,
    providerChargeId: row.payment_provider_charge_id,
    refund: row.refund as RefundState | null,
  };
}

const paymentTotals = (rows: MinorRow[]): PaymentTotals => ({
  count: rows.reduce((count, row) => count + row.count, 0),
  sums: rows.map((row) => ({ currency: row.currency, sum: amountOf(row.minor, row.currency) })),
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
    return this.snapshot(async (tx) => {
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
      // The method that took the money: the applied payment's (a purchase has one at most),
      // else the one the purchase asked for; none for a purchase that asked for no payment.
      const methods = await sql<MethodRow>`
        SELECT coalesce(pay.method, purchases.payment_method) AS method, ${OUTCOME} AS outcome,
          count(*)::int AS count, sum(${AMOUNT})::text AS sum
        FROM purchases
        LEFT JOIN payments AS pay ON pay.purchase_id = purchases.id AND pay.applied
        WHERE ${within} AND ${OUTCOME} IN (${sql.join(METHOD_OUTCOMES.map((o) => sql.lit(o)))})
        GROUP BY 1, 2 ORDER BY 1 NULLS LAST, 2`.execute(tx);
      // An open purchase has due_at set (a CHECK holds it), which purchases_due indexes; a
      // refund due may have it too, and is not open.
      const open = await sql<TotalsRow>`
        SELECT count(*)::int AS count, sum(price)::text AS sum
        FROM purchases WHERE due_at IS NOT NULL AND phase IN (${OPEN_PHASES})`.execute(tx);
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
        methods: methodTotals(methods.rows),
        open: totals(open.rows[0]),
      };
    });
  }

  /** Read in one snapshot, as the summary. */
  payments(period: ReportPeriod, settledBefore: number): Promise<PaymentSummary> {
    const cutoff = new Date(settledBefore).toISOString();
    return this.snapshot(async (tx) => {
      // One row per line and currency: each payment of the period counts as received, and in
      // the line of its refund or of its mismatch when it has one.
      const { rows } = await sql<MinorRow>`
        SELECT m.measure, p.currency, count(*)::int AS count, sum(p.minor)::text AS minor
        FROM payments AS p
        LEFT JOIN purchases AS pu ON pu.id = p.purchase_id
        CROSS JOIN LATERAL (VALUES
          ('received'),
          (CASE p.refund WHEN 'due' THEN 'refundDue' WHEN 'refunded' THEN 'refunded' END),
          (CASE WHEN p.refund = 'none' AND p.received_at < ${cutoff}::timestamptz
            AND pu.phase IS DISTINCT FROM 'charged' THEN 'unsettled' END)
        ) AS m (measure)
        WHERE m.measure IS NOT NULL AND ${this.within(period, sql.ref("p.received_at"))}
        GROUP BY m.measure, p.currency
        UNION ALL
        SELECT 'refundsDueNow', currency, count(*)::int, sum(minor)::text
        FROM payments WHERE refund = 'due' GROUP BY currency
        ORDER BY 1, 2`.execute(tx);
      const chargedUnpaid = await sql<TotalsRow>`
        SELECT count(*)::int AS count, sum(${CHARGED})::text AS sum
        FROM purchases
        WHERE phase = 'charged' AND payment_method IS NOT NULL AND ${this.within(period)}
          AND NOT EXISTS (
            SELECT FROM payments WHERE payments.purchase_id = purchases.id AND payments.applied)`.execute(
        tx,
      );
      const of = (measure: PaymentMeasure) =>
        paymentTotals(rows.filter((row) => row.measure === measure));
      return {
        received: of("received"),
        refundDue: of("refundDue"),
        refunded: of("refunded"),
        refundsDueNow: of("refundsDueNow"),
        unsettled: of("unsettled"),
        chargedUnpaid: totals(chargedUnpaid.rows[0]),
      };
    });
  }

  async *rows(period: ReportPeriod): AsyncIterable<ReportRow> {
    const within = this.within(period);
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const from = after;
      const page = await this.ledger.run((db) =>
        db
          .selectFrom("purchases")
          // A purchase has one applied payment at most (a unique index): one line each.
          .leftJoin("payments", (join) =>
            join
              .onRef("payments.purchase_id", "=", "purchases.id")
              .on("payments.applied", "=", true),
          )
          .select([
            "purchases.id",
            "purchases.buyer",
            "customer_id",
            "service",
            "connection_id",
            "bouquet_code",
            "bouquet_name",
            "checkout_id",
            "txn_id",
            "reference",
            "created_at",
            // The applied payment's, else what the purchase holds (asked for, or paid by).
            sql<string | null>`coalesce(payments.method, payment_method)`.as("payment_method"),
            sql<string | null>`coalesce(payments.charge_id, payment_charge_id)`.as(
              "payment_charge_id",
            ),
            sql<
              string | null
            >`coalesce(payments.provider_charge_id, payment_provider_charge_id)`.as(
              "payment_provider_charge_id",
            ),
            "payments.currency as paid_currency",
            "payments.minor as paid_minor",
            "payments.refund",
            OUTCOME.as("outcome"),
            sql<string>`(${AMOUNT})::text`.as("amount"),
            // The cursor as the database has it: a Date would drop the microseconds.
            sql<string>`created_at::text`.as("cursor"),
          ])
          .where(within)
          .$if(from !== undefined, (query) =>
            query.where(
              sql<boolean>`(created_at, purchases.id) > (${from?.at}::timestamptz, ${from?.id}::text)`,
            ),
          )
          .orderBy("created_at")
          .orderBy("purchases.id")
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
          payment: rowPayment(row),
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

  /**
   * Created (or, for another column, happened) on one of the period's days in the provider's
   * zone: bounds an index can use.
   */
  private within(period: ReportPeriod, column = sql.ref("created_at")): RawBuilder<boolean> {
    const zone = sql`${this.timeZone}::text`;
    return sql<boolean>`${column} >= (${period.first}::date::timestamp AT TIME ZONE ${zone})
      AND ${column} < ((${period.last}::date + 1)::timestamp AT TIME ZONE ${zone})`;
  }

  /** Read-only, repeatable read: every query of `work` sees the same ledger. */
  private snapshot<T>(work: (tx: Kysely<LedgerTables>) => Promise<T>): Promise<T> {
    return this.ledger.run((db) =>
      db
        .transaction()
        .setIsolationLevel("repeatable read")
        .setAccessMode("read only")
        .execute(work),
    );
  }
}
