// The provider balance in the ledger: entries appended (the database refuses any other write)
// and the balance expected from the last reading, the deposits since and the top-ups charged since.
import { sql } from "kysely";
import type {
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
    const scale = sql.lit(10 ** this.minorDigits);
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
}
