// The provider balance in the ledger: entries appended (the database refuses any other write)
// and the balance expected from the last reading, the deposits since and the top-ups charged since.
import { sql } from "kysely";
import type {
  BalanceDrift,
  BalanceEntry,
  ExpectedBalance,
  ProviderBalanceLedger,
} from "../../domain/provider-balance.js";
import type { LedgerConnection } from "./connection.js";

export class ProviderBalanceStore implements ProviderBalanceLedger {
  constructor(
    private readonly ledger: Pick<LedgerConnection, "run">,
    private readonly minorDigits: number,
  ) {}

  record(entry: BalanceEntry): Promise<void> {
    return this.ledger.run(async (db) => {
      await sql`INSERT INTO provider_balance_entries (kind, amount_minor, note, admin)
        VALUES (${entry.kind}, ${entry.amountMinor.toString()}, ${entry.note}, ${entry.admin})`.execute(
        db,
      );
    });
  }

  expected(): Promise<ExpectedBalance> {
    const scale = this.scale();
    return this.ledger.run(async (db) => {
      const { rows } = await sql<{
        reading: string | null;
        read_at: Date | null;
        deposits: string;
        charged: string;
      }>`
        WITH last AS (SELECT amount_minor, recorded_at FROM provider_balance_entries
                      WHERE kind = 'reading' ORDER BY id DESC LIMIT 1)
        SELECT (SELECT amount_minor::text FROM last) AS reading,
               (SELECT recorded_at FROM last) AS read_at,
               (SELECT coalesce(sum(amount_minor), 0)::text FROM provider_balance_entries
                 WHERE kind = 'deposit'
                   AND id > coalesce((SELECT max(id) FROM provider_balance_entries
                                      WHERE kind = 'reading'), 0)) AS deposits,
               (SELECT coalesce(round(sum(coalesce(txn_amount, price)) * ${scale}), 0)::text
                  FROM purchases WHERE phase = 'charged'
                   AND charged_at > coalesce((SELECT recorded_at FROM last), '-infinity')) AS charged`.execute(
        db,
      );
      const row = rows[0];
      const reading = row?.reading == null ? 0n : BigInt(row.reading);
      const deposits = BigInt(row?.deposits ?? "0");
      const charged = BigInt(row?.charged ?? "0");
      return {
        expectedMinor: reading + deposits - charged,
        lastReading:
          row?.reading == null || row.read_at == null
            ? null
            : { amountMinor: reading, at: new Date(row.read_at) },
        depositsSinceMinor: deposits,
        chargedSinceMinor: charged,
      };
    });
  }

  /**
   * Each reading of those days against what `expected()` would have said just before it: the
   * reading before it, the deposits recorded between the two and the top-ups charged since.
   */
  drifts(first: string, last: string, timeZone: string): Promise<BalanceDrift[]> {
    const scale = this.scale();
    return this.ledger.run(async (db) => {
      const { rows } = await sql<{ at: Date; reading: string; expected: string }>`
        WITH readings AS (
          SELECT id, amount_minor, recorded_at,
                 lag(id) OVER byId AS before_id,
                 lag(amount_minor) OVER byId AS before_minor,
                 lag(recorded_at) OVER byId AS before_at
            FROM provider_balance_entries WHERE kind = 'reading'
            WINDOW byId AS (ORDER BY id))
        SELECT r.recorded_at AS at, r.amount_minor::text AS reading,
               (coalesce(r.before_minor, 0)
                + (SELECT coalesce(sum(amount_minor), 0) FROM provider_balance_entries
                    WHERE kind = 'deposit' AND id > coalesce(r.before_id, 0) AND id < r.id)
                - (SELECT coalesce(round(sum(coalesce(txn_amount, price)) * ${scale}), 0)
                     FROM purchases WHERE phase = 'charged'
                      AND charged_at > coalesce(r.before_at, '-infinity')
                      AND charged_at <= r.recorded_at))::bigint::text AS expected
          FROM readings r
         WHERE r.recorded_at >= (${first}::date::timestamp AT TIME ZONE ${timeZone})
           AND r.recorded_at < ((${last}::date + 1)::timestamp AT TIME ZONE ${timeZone})
         ORDER BY r.id`.execute(db);
      return rows.map((row) => ({
        at: new Date(row.at),
        readingMinor: BigInt(row.reading),
        expectedMinor: BigInt(row.expected),
      }));
    });
  }

  /** Decimal amounts to minor units, as a literal of the query. */
  private scale() {
    return sql.lit(10 ** this.minorDigits);
  }
}
