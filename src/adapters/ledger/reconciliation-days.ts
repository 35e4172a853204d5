// The ledger's side of the daily reconciliation (domain/daily-reconciliation.ts): the purchases
// of one day in the provider's zone, a keyset page at a time. A purchase belongs to each day
// on which a payment was received for it, a payment offered by it or a checkout token taken
// for it; the three are found by time (payments_by_time, payment_offers_by_time,
// purchase_checkouts_by_time), and a page's rows by three queries over its ids.
import { type RawBuilder, sql } from "kysely";
import type { LedgerSide } from "../../domain/daily-reconciliation.js";
import { parseMinorUnits } from "../../domain/provider-balance.js";
import type { PurchasePhase } from "../../domain/purchase.js";
import type { LedgerConnection } from "./connection.js";

interface PurchaseColumns {
  id: string;
  phase: PurchasePhase;
  price: string;
  payment_method: string | null;
  payment_minor: string | null;
  checkout_id: string | null;
  txn_id: string | null;
}
interface PaymentColumns {
  purchase_id: string;
  method: string;
  charge_id: string;
  minor: string;
  refund: string;
  refunded_in_part: boolean;
}
interface OfferColumns {
  purchase_id: string;
  method: string;
  handle: string;
}
interface CheckoutColumns {
  purchase_id: string;
  checkout_id: string;
}

export class LedgerDays {
  constructor(
    private readonly ledger: Pick<LedgerConnection, "run">,
    private readonly options: { timeZone: string; minorDigits: number },
  ) {}

  /** The day's purchases (`day` YYYY-MM-DD) after `after` by id, at most `limit`. */
  purchasesOfDay(day: string, after: string | null, limit: number): Promise<LedgerSide[]> {
    const zone = this.options.timeZone;
    const start = sql`(${day}::date::timestamp AT TIME ZONE ${zone})`;
    const stop = sql`((${day}::date + 1)::timestamp AT TIME ZONE ${zone})`;
    const within = (column: RawBuilder<unknown>) =>
      sql`${column} >= ${start} AND ${column} < ${stop}`;
    return this.ledger.run(async (db) => {
      const { rows: purchases } = await sql<PurchaseColumns>`
        WITH of_day AS (
          SELECT purchase_id FROM payments
           WHERE ${within(sql.ref("received_at"))} AND purchase_id IS NOT NULL
          UNION
          SELECT purchase_id FROM payment_offers WHERE ${within(sql.ref("offered_at"))}
          UNION
          SELECT purchase_id FROM purchase_checkouts WHERE ${within(sql.ref("taken_at"))})
        SELECT p.id, p.phase, p.price::text AS price, p.payment_method,
               p.payment_minor::text AS payment_minor, p.checkout_id, p.txn_id
          FROM purchases p JOIN of_day ON of_day.purchase_id = p.id
         WHERE ${after === null ? sql`true` : sql`p.id > ${after}`}
         ORDER BY p.id LIMIT ${limit}`.execute(db);
      if (purchases.length === 0) return [];
      const ids = purchases.map((purchase) => purchase.id);
      const { rows: payments } = await sql<PaymentColumns>`
        SELECT purchase_id, method, charge_id, minor::text AS minor, refund,
               outside_refund_seen_at IS NOT NULL AS refunded_in_part FROM payments
         WHERE purchase_id = ANY (${ids}::text[]) ORDER BY id`.execute(db);
      const { rows: offers } = await sql<OfferColumns>`
        SELECT purchase_id, method, handle FROM payment_offers
         WHERE purchase_id = ANY (${ids}::text[]) ORDER BY offered_at, handle`.execute(db);
      const { rows: checkouts } = await sql<CheckoutColumns>`
        SELECT purchase_id, checkout_id FROM purchase_checkouts
         WHERE purchase_id = ANY (${ids}::text[]) ORDER BY taken_at, checkout_id`.execute(db);
      return purchases.map((purchase) =>
        this.side(
          purchase,
          payments.filter((row) => row.purchase_id === purchase.id),
          offers.filter((row) => row.purchase_id === purchase.id),
          checkouts.filter((row) => row.purchase_id === purchase.id),
        ),
      );
    });
  }

  private side(
    purchase: PurchaseColumns,
    payments: PaymentColumns[],
    offers: OfferColumns[],
    checkouts: CheckoutColumns[],
  ): LedgerSide {
    const priceMinor = this.minorOf(purchase);
    const offeredMinor =
      purchase.payment_minor === null ? priceMinor : BigInt(purchase.payment_minor);
    const recorded = new Set(payments.map((row) => `${row.method}:${row.charge_id}`));
    return {
      purchaseId: purchase.id,
      phase: purchase.phase,
      priceMinor,
      agentMode: purchase.payment_method === null,
      payments: [
        ...payments.map((row) => ({
          system: row.method,
          id: row.charge_id,
          amountMinor: BigInt(row.minor),
          refunded: row.refund === "refunded",
          recorded: true,
          ...(row.refunded_in_part && { refundedInPart: true }),
        })),
        // An offer whose handle is no payment's charge id: the buyer may have paid it unseen.
        ...offers
          .filter((row) => !recorded.has(`${row.method}:${row.handle}`))
          .map((row) => ({
            system: row.method,
            id: row.handle,
            amountMinor: offeredMinor,
            refunded: false,
            recorded: false,
          })),
      ],
      txnId: purchase.txn_id,
      checkoutIds: [
        ...new Set([
          ...checkouts.map((row) => row.checkout_id),
          ...(purchase.checkout_id === null ? [] : [purchase.checkout_id]),
        ]),
      ],
    };
  }

  /** The price in minor units, exactly: trailing zeros of the decimal text are no paisa. */
  private minorOf(purchase: PurchaseColumns): bigint {
    const text = purchase.price.includes(".")
      ? purchase.price.replace(/0+$/, "").replace(/\.$/, "")
      : purchase.price;
    const minor = parseMinorUnits(text, this.options.minorDigits);
    if (minor === null) {
      throw new Error(`purchase ${purchase.id}: its price is not a whole number of minor units`);
    }
    return minor;
  }
}
