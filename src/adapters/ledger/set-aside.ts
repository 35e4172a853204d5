// Payments set aside for a person (migrations/0010): one row per method and charge id, written
// as the payment system stated it. Every text is made storable first (no NUL, at most a few
// hundred characters), so that the row a refusal sends here is not refused in its turn. An
// offer its system had not settled when it could no longer be paid is raised here too (kind
// "unsettled", migrations/0012): once, closed by the bot when the system settles it, and taken
// over by a payment set aside later on the same offer.
import { sql } from "kysely";
import {
  type OfferRef,
  PaymentRefused,
  type ReceivedPayment,
  type SetAside,
} from "../../domain/payment.js";
import { type LedgerConnection, refusalOf } from "./connection.js";

const COLUMNS = [
  "kind",
  "method",
  "charge_id",
  "purchase_id",
  "buyer",
  "currency",
  "amount",
  "provider_charge_id",
  "reason",
  "set_aside_at",
  "closed_at",
  "closed_by",
  "close_note",
] as const;

type Ledger = Pick<LedgerConnection, "run">;

/** A text PostgreSQL takes whatever it was: no NUL, and short enough to read. */
function storable(value: unknown, max = 200): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.replaceAll("\u0000", "\uFFFD").slice(0, max);
}

/**
 * The row when it is new, null when this method and charge id were set aside before. A payment
 * set aside on an offer raised as unsettled takes that row over (it is new then); an unsettled
 * offer is raised once, whatever came before.
 */
export async function setAside(
  ledger: Ledger,
  payment: ReceivedPayment,
  buyer: number | null,
  reason: string,
  kind: SetAside["kind"] = "payment",
): Promise<SetAside | null> {
  const at = typeof payment.charge?.at === "number" ? new Date(payment.charge.at) : null;
  try {
    const row = await ledger.run((db) =>
      db
        .insertInto("payment_anomalies")
        .values({
          kind,
          method: storable(payment.method, 40),
          charge_id: storable(payment.charge?.id),
          purchase_id: storable(payment.purchaseId),
          buyer,
          currency: storable(payment.currency, 40),
          amount: storable(String(payment.minor), 40),
          provider_charge_id:
            payment.charge?.providerId == null ? null : storable(payment.charge.providerId),
          // A date PostgreSQL can hold, or none.
          paid_at: at && Math.abs(at.getFullYear() - 2000) < 1000 ? at : null,
          reason: storable(reason, 500),
        })
        .onConflict((conflict) =>
          kind === "unsettled"
            ? conflict.columns(["method", "charge_id"]).doNothing()
            : conflict
                .columns(["method", "charge_id"])
                .doUpdateSet((eb) => ({
                  kind: eb.ref("excluded.kind"),
                  amount: eb.ref("excluded.amount"),
                  currency: eb.ref("excluded.currency"),
                  provider_charge_id: eb.ref("excluded.provider_charge_id"),
                  paid_at: eb.ref("excluded.paid_at"),
                  reason: eb.ref("excluded.reason"),
                  set_aside_at: sql<Date>`now()`,
                  closed_at: null,
                  closed_by: null,
                  close_note: null,
                }))
                // An unsettled offer a person closed (settled by hand) is never reopened.
                .where("payment_anomalies.kind", "=", "unsettled")
                .where((eb) =>
                  eb.or([
                    eb("payment_anomalies.closed_at", "is", null),
                    eb("payment_anomalies.closed_by", "=", "bot"),
                  ]),
                ),
        )
        .returning(COLUMNS)
        .executeTakeFirst(),
    );
    return row ? setAsideOf(row) : null;
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal !== null) throw new PaymentRefused(refusal);
    throw error;
  }
}

export async function openSetAside(ledger: Ledger, count: number): Promise<SetAside[]> {
  const rows = await ledger.run((db) =>
    db
      .selectFrom("payment_anomalies")
      .select(COLUMNS)
      .where("closed_at", "is", null)
      .orderBy("set_aside_at")
      .limit(count)
      .execute(),
  );
  return rows.map(setAsideOf);
}

/** The open ones a person names by the purchase id, the charge id or the other id. */
export async function setAsideByReference(
  ledger: Ledger,
  reference: string,
  count: number,
): Promise<SetAside[]> {
  const rows = await ledger.run((db) =>
    db
      .selectFrom("payment_anomalies")
      .select(COLUMNS)
      .where("closed_at", "is", null)
      .where((w) =>
        w.or([
          w("charge_id", "=", reference),
          w("purchase_id", "=", reference),
          w("provider_charge_id", "=", reference),
        ]),
      )
      .orderBy("set_aside_at")
      .limit(count)
      .execute(),
  );
  return rows.map(setAsideOf);
}

/** A payment of this purchase was set aside (an unsettled offer is none). */
export async function hasSetAside(ledger: Ledger, purchaseId: string): Promise<boolean> {
  const row = await ledger.run((db) =>
    db
      .selectFrom("payment_anomalies")
      .select("id")
      .where("purchase_id", "=", purchaseId)
      .where("kind", "=", "payment")
      .limit(1)
      .executeTakeFirst(),
  );
  return row !== undefined;
}

/** The one open by this method and charge id, closed once. */
export async function closeSetAside(
  ledger: Ledger,
  method: string,
  chargeId: string,
  by: string,
  note: string | null,
): Promise<SetAside | null> {
  const row = await ledger.run((db) =>
    db
      .updateTable("payment_anomalies")
      .set({ closed_at: sql<Date>`now()`, closed_by: by, close_note: note })
      .where("method", "=", method)
      .where("charge_id", "=", chargeId)
      .where("closed_at", "is", null)
      .returning(COLUMNS)
      .executeTakeFirst(),
  );
  return row ? setAsideOf(row) : null;
}

/** An offer raised as unsettled, settled by its system since: closed by the bot. */
export async function settleUnsettled(
  ledger: Ledger,
  offer: OfferRef,
  note: string,
): Promise<boolean> {
  const row = await ledger.run((db) =>
    db
      .updateTable("payment_anomalies")
      .set({ closed_at: sql<Date>`now()`, closed_by: "bot", close_note: storable(note, 500) })
      .where("method", "=", offer.method)
      .where("charge_id", "=", offer.handle)
      .where("kind", "=", "unsettled")
      .where("closed_at", "is", null)
      .returning("id")
      .executeTakeFirst(),
  );
  return row !== undefined;
}

function setAsideOf(row: {
  kind: string;
  method: string;
  charge_id: string;
  purchase_id: string | null;
  buyer: string | null;
  currency: string | null;
  amount: string;
  provider_charge_id: string | null;
  reason: string;
  set_aside_at: Date;
  closed_at: Date | null;
  closed_by: string | null;
  close_note: string | null;
}): SetAside {
  return {
    kind: row.kind === "unsettled" ? "unsettled" : "payment",
    method: row.method,
    purchaseId: row.purchase_id,
    buyer: row.buyer === null ? null : Number(row.buyer),
    currency: row.currency,
    amount: row.amount,
    chargeId: row.charge_id,
    providerChargeId: row.provider_charge_id,
    reason: row.reason,
    setAsideAt: row.set_aside_at.getTime(),
    ...(row.closed_at !== null && {
      closed: { at: row.closed_at.getTime(), by: row.closed_by ?? "", note: row.close_note },
    }),
  };
}
