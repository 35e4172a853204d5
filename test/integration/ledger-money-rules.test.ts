// The money rules the database holds itself (migration 0003-money-rules), the same suite on a
// real PostgreSQL server and on the embedded PGlite: a purchase's phase changes only along the
// allowed transitions, a purchase owed back or refunded has no provider transaction, a payment
// that pays for a purchase paid what it asked and is the only one; and the migration stops,
// changing nothing, on a ledger that already breaks a rule. Rows are written by hand (no domain
// code, no adapter): the database alone must refuse.
import { type Insertable, type Kysely, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerConnection } from "../../src/adapters/ledger/connection.js";
import { migrate } from "../../src/adapters/ledger/migrate.js";
import {
  ALLOWED_PHASE_CHANGES,
  PAYMENT_DIFFERS,
  PHASE_CHANGE_REFUSED,
} from "../../src/adapters/ledger/migrations/0003-money-rules.js";
import { LATE_PAYMENT_PHASE_CHANGES } from "../../src/adapters/ledger/migrations/0009-offer-lifecycle.js";
import { PAYER_NOT_BUYER } from "../../src/adapters/ledger/migrations/0011-payment-payer.js";
import {
  MONEY_RECORD_KEPT,
  SET_ASIDE_IS_A_PERSONS,
  SETTLED_STAYS_SETTLED,
} from "../../src/adapters/ledger/migrations/0016-money-guards.js";
import { MIGRATIONS } from "../../src/adapters/ledger/migrations/index.js";
import type { LedgerTables, PurchaseRow } from "../../src/adapters/ledger/schema.js";
import { OPEN_PHASES, PURCHASE_PHASES, type PurchasePhase } from "../../src/domain/purchase.js";
import { phaseChanges } from "../../src/domain/purchase-machine.js";
import {
  EVERY_MIGRATION,
  LEDGER_ENGINES,
  ledgerTarget,
  testLedger,
} from "../support/ledger-fixture.js";
import { ledgerRow } from "../support/ledger-rows.js";
import { captureLogs } from "../support/log-capture.js";

const PHASES = PURCHASE_PHASES;
type Phase = PurchasePhase;
const OPEN = [...OPEN_PHASES];

/** The allowed changes as the domain declares them (the machine's table). */
const ALLOWED = phaseChanges();
const key = ([from, to]: readonly [string, string]) => `${from} > ${to}`;
const allowedKeys = new Set(ALLOWED.map(key));
/** Every change of phase (from ≠ to) not allowed. */
const FORBIDDEN: [Phase, Phase][] = PHASES.flatMap((from) =>
  PHASES.filter((to) => to !== from && !allowedKeys.has(key([from, to]))).map(
    (to): [Phase, Phase] => [from, to],
  ),
);

/**
 * The columns a phase's row has, so that the rest of the ledger's checks hold in every phase and
 * the only thing a change of phase can break is the transition itself. Every purchase here asked
 * for NPR 700.00 in the bot, and was paid unless it waits for its payment or went unpaid.
 */
function shapeOf(phase: Phase, id: string): Partial<Insertable<PurchaseRow>> {
  const unpaid = phase === "awaiting-payment" || phase === "unpaid";
  return {
    phase,
    reason: phase === "not-charged" ? "verified" : phase === "unpaid" ? "expired" : null,
    txn_id: phase === "charged" ? `TXN-${id}` : null,
    txn_amount: phase === "charged" ? "700" : null,
    due_at:
      OPEN.includes(phase) || phase === "refund-due" ? new Date(Date.now() + 3_600_000) : null,
    payment_charge_id: unpaid ? null : `charge-${id}`,
    payment_provider_charge_id: unpaid ? null : `provider-${id}`,
    paid_at: unpaid ? null : new Date(),
  };
}

/** A purchase row in `phase` (a buyer of its own, so that none is in flight twice). */
function purchaseIn(phase: Phase, overrides: Partial<Insertable<PurchaseRow>> = {}) {
  const row = ledgerRow({ created_at: new Date(), phase });
  return {
    ...row,
    told: null,
    payment_method: "telegram",
    payment_currency: "NPR",
    payment_minor: 70_000,
    payment_expires_at: new Date(Date.now() + 900_000),
    ...shapeOf(phase, row.id),
    ...overrides,
  };
}

async function insertPurchase(db: Kysely<LedgerTables>, row: Insertable<PurchaseRow>) {
  await db.insertInto("purchases").values(row).execute();
  return row.id;
}

const phaseOf = async (db: Kysely<LedgerTables>, id: string) =>
  (await db.selectFrom("purchases").select("phase").where("id", "=", id).executeTakeFirst())?.phase;

/** A payment written by hand; applied unless told, or else owed back. */
function insertPayment(
  db: Kysely<LedgerTables>,
  payment: {
    purchaseId: string | null;
    minor?: number;
    currency?: string;
    applied?: boolean;
    charge: string;
  },
) {
  const applied = payment.applied ?? true;
  return sql<{ id: string }>`
    INSERT INTO payments (purchase_id, method, currency, minor, charge_id, applied, refund,
                          refund_due_at, refund_reason)
    VALUES (${payment.purchaseId}, 'telegram', ${payment.currency ?? "NPR"},
            ${payment.minor ?? 70_000}, ${payment.charge}, ${applied},
            ${applied ? "none" : "due"}, ${applied ? null : new Date()}::timestamptz,
            ${applied ? null : "stray"})
    RETURNING id::text AS id`.execute(db);
}

/** The allowed changes as the migrations write them: 0003's, then 0009's payment found late. */
const MIGRATED = [...ALLOWED_PHASE_CHANGES, ...LATE_PAYMENT_PHASE_CHANGES];

describe("the allowed changes of phase", () => {
  it("are the domain's list, pairs of known phases, each once", () => {
    expect(MIGRATED.map(key).sort()).toEqual(ALLOWED.map(key).sort());
    expect(new Set(MIGRATED.map(key)).size).toBe(26);
    for (const [from, to] of MIGRATED) {
      expect(PHASES).toContain(from);
      expect(PHASES).toContain(to);
    }
  });

  it("leave every other change forbidden, the finished phases' first", () => {
    expect(FORBIDDEN).toHaveLength(PHASES.length * (PHASES.length - 1) - 26);
    const forbidden = new Set(FORBIDDEN.map(key));
    for (const finished of ["charged", "refunded", "not-charged", "unpaid"] as const) {
      // Unpaid is left only for paid: a payment found on one of its offers after it ended.
      for (const to of PHASES.filter((phase) => phase !== finished)) {
        if (finished === "unpaid" && to === "paid") continue;
        expect(forbidden).toContain(key([finished, to]));
      }
    }
    for (const pair of [
      ["unpaid", "charged"],
      ["unpaid", "awaiting-payment"],
      ["awaiting-payment", "charged"],
      ["refund-due", "paid"],
    ] as const) {
      expect(forbidden).toContain(key(pair));
    }
  });
});

describe.each(LEDGER_ENGINES)("the ledger's money rules on %s", (engine) => {
  const ledger = testLedger(engine, "ledger_rules", { poolSize: 3 });
  let db: Kysely<LedgerTables>;

  beforeAll(() => {
    db = ledger.db;
  });

  it("keeps the allowed changes in purchase_transitions, as the migration declares them", async () => {
    const rows = await sql<{ from_phase: string; to_phase: string }>`
      SELECT from_phase, to_phase FROM purchase_transitions`.execute(db);
    expect(rows.rows.map((row) => key([row.from_phase, row.to_phase])).sort()).toEqual(
      ALLOWED.map(key).sort(),
    );
  });

  it.each(FORBIDDEN)("refuses %s → %s, naming the purchase and the change", async (from, to) => {
    const id = await insertPurchase(db, purchaseIn(from));
    await expect(
      db.updateTable("purchases").set(shapeOf(to, id)).where("id", "=", id).execute(),
    ).rejects.toMatchObject({
      code: PHASE_CHANGE_REFUSED,
      message: `phase change refused: purchase ${id} from ${from} to ${to}`,
    });
    expect(await phaseOf(db, id)).toBe(from);
  });

  it.each(ALLOWED)("accepts %s → %s", async (from, to) => {
    const id = await insertPurchase(db, purchaseIn(from));
    await db.updateTable("purchases").set(shapeOf(to, id)).where("id", "=", id).execute();
    expect(await phaseOf(db, id)).toBe(to);
  });

  it.each(PHASES)("accepts any write that keeps the phase %s", async (phase) => {
    const id = await insertPurchase(db, purchaseIn(phase));
    const told = OPEN.includes(phase) ? null : phase;
    const written = await db
      .updateTable("purchases")
      .set({ ...shapeOf(phase, id), told, updated_at: new Date(), status_message: "m" })
      .where("id", "=", id)
      .executeTakeFirst();
    expect(written.numUpdatedRows).toBe(1n);
    expect(await phaseOf(db, id)).toBe(phase);
  });

  it("refuses a purchase owed back or refunded with a provider transaction id", async () => {
    const checkRefused = /purchases_refund_without_txn/;
    for (const phase of ["refund-due", "refunded"] as const) {
      await expect(insertPurchase(db, purchaseIn(phase, { txn_id: "TXN-X" }))).rejects.toThrow(
        checkRefused,
      );
      // Without one, the same row is accepted; a transaction id is refused later as well.
      const id = await insertPurchase(db, purchaseIn(phase));
      await expect(
        db.updateTable("purchases").set({ txn_id: "TXN-X" }).where("id", "=", id).execute(),
      ).rejects.toThrow(checkRefused);
    }
    // An allowed change of phase into refund-due that keeps a transaction id: refused too.
    const unknown = await insertPurchase(db, purchaseIn("unknown", { txn_id: "TXN-U" }));
    await expect(
      db
        .updateTable("purchases")
        .set({ ...shapeOf("refund-due", unknown), txn_id: "TXN-U" })
        .where("id", "=", unknown)
        .execute(),
    ).rejects.toThrow(checkRefused);
    expect(await phaseOf(db, unknown)).toBe("unknown");
  });

  it("refuses an applied payment of another amount or currency, or for no purchase", async () => {
    const id = await insertPurchase(db, purchaseIn("paid"));
    const refused = (pattern: string) => ({
      code: PAYMENT_DIFFERS,
      message: expect.stringContaining(pattern),
    });
    await expect(
      insertPayment(db, { purchaseId: id, minor: 69_999, charge: "a1" }),
    ).rejects.toMatchObject(refused(`of 69999 NPR for purchase ${id}, which asks for 70000 NPR`));
    await expect(
      insertPayment(db, { purchaseId: id, currency: "INR", charge: "a2" }),
    ).rejects.toMatchObject(refused(`of 70000 INR for purchase ${id}, which asks for 70000 NPR`));
    await expect(insertPayment(db, { purchaseId: null, charge: "a3" })).rejects.toMatchObject(
      refused("for purchase <NULL>"),
    );
    // A purchase that asked for no payment (paid outside the bot) has none applied either.
    const unasked = await insertPurchase(
      db,
      purchaseIn("charged", {
        payment_method: null,
        payment_currency: null,
        payment_minor: null,
        payment_expires_at: null,
        payment_charge_id: null,
        payment_provider_charge_id: null,
        paid_at: null,
      }),
    );
    await expect(insertPayment(db, { purchaseId: unasked, charge: "a4" })).rejects.toMatchObject(
      refused(`for purchase ${unasked}, which asks for <NULL> <NULL>`),
    );
    // Exactly what was asked: accepted, once.
    const applied = await insertPayment(db, { purchaseId: id, charge: "a5" });
    expect(applied.rows).toHaveLength(1);
    const paid = await db
      .selectFrom("payments")
      .select("charge_id")
      .where("purchase_id", "in", [id, unasked])
      .execute();
    expect(paid.map((row) => row.charge_id)).toEqual(["a5"]);
  });

  it("refuses an applied payment by someone other than the buyer; takes it owed back", async () => {
    const row = purchaseIn("paid");
    const id = await insertPurchase(db, row);
    const pay = (charge: string, payer: number | null, applied: boolean) =>
      sql`
      INSERT INTO payments (purchase_id, payer, method, currency, minor, charge_id, applied,
                            refund, refund_due_at, refund_reason)
      VALUES (${id}, ${payer}, 'telegram', 'NPR', 70000, ${charge}, ${applied},
              ${applied ? "none" : "due"}, ${applied ? null : new Date()}::timestamptz,
              ${applied ? null : "stray"})`.execute(db);
    await expect(pay("payer-b1", Number(row.buyer) + 1, true)).rejects.toMatchObject({
      code: PAYER_NOT_BUYER,
      message: expect.stringContaining(
        `for purchase ${id} was paid by someone other than its buyer`,
      ),
    });
    // Owed back, it is taken; so is the buyer's own, or one whose payer the system does not say.
    await pay("payer-b2", Number(row.buyer) + 1, false);
    await pay("payer-b3", Number(row.buyer), true);
    await expect(
      sql`UPDATE payments SET payer = ${Number(row.buyer) + 1} WHERE charge_id = 'payer-b3'`.execute(
        db,
      ),
    ).rejects.toMatchObject({ code: PAYER_NOT_BUYER });
    const other = await insertPurchase(db, purchaseIn("paid"));
    await sql`
      INSERT INTO payments (purchase_id, method, currency, minor, charge_id, applied)
      VALUES (${other}, 'telegram', 'NPR', 70000, 'payer-b4', true)`.execute(db);
  });

  it("refuses a change that makes an applied payment differ from its purchase's ask", async () => {
    const id = await insertPurchase(db, purchaseIn("paid"));
    const payment = (await insertPayment(db, { purchaseId: id, charge: "b1" })).rows[0]?.id ?? "";
    await expect(
      sql`UPDATE payments SET minor = 80000 WHERE id = ${payment}`.execute(db),
    ).rejects.toMatchObject({ code: PAYMENT_DIFFERS });
    await expect(
      sql`UPDATE payments SET currency = 'USD' WHERE id = ${payment}`.execute(db),
    ).rejects.toMatchObject({ code: PAYMENT_DIFFERS });
    // Seen from the purchase: its ask cannot move away from what was paid.
    await expect(
      db.updateTable("purchases").set({ payment_minor: 80_000 }).where("id", "=", id).execute(),
    ).rejects.toMatchObject({
      code: PAYMENT_DIFFERS,
      message: `asked amount change refused: purchase ${id} has an applied payment of another amount`,
    });
    // A purchase whose payment is not applied may change what it asks.
    const other = await insertPurchase(db, purchaseIn("awaiting-payment"));
    const stray = (
      await insertPayment(db, { purchaseId: other, minor: 50_000, applied: false, charge: "b2" })
    ).rows[0]?.id;
    await db
      .updateTable("purchases")
      .set({ payment_minor: 90_000 })
      .where("id", "=", other)
      .execute();
    // That payment made applied by hand, of another amount than asked: refused.
    await expect(
      sql`UPDATE payments SET applied = true, refund = 'none', refund_due_at = NULL
          WHERE id = ${stray}`.execute(db),
    ).rejects.toMatchObject({ code: PAYMENT_DIFFERS });
    // Counting a refund call (no amount at stake) is not in the way, under a live lease (0015).
    await sql`UPDATE payments SET refund_attempts = refund_attempts + 1,
          refund_lease_owner = 'desk', refund_lease_until = now() + interval '1 minute'
        WHERE id = ${stray}`.execute(db);
    const rows = await db
      .selectFrom("payments")
      .select(["minor", "currency", "applied"])
      .where("charge_id", "in", ["b1", "b2"])
      .orderBy("charge_id")
      .execute();
    // bigint: text from pg, a number from PGlite.
    expect(rows.map((row) => ({ ...row, minor: Number(row.minor) }))).toEqual([
      { minor: 70_000, currency: "NPR", applied: true },
      { minor: 50_000, currency: "NPR", applied: false },
    ]);
  });

  it("refuses a second applied payment for a purchase; accepts one owed back, any amount", async () => {
    const id = await insertPurchase(db, purchaseIn("paid"));
    await insertPayment(db, { purchaseId: id, charge: "c1" });
    await expect(insertPayment(db, { purchaseId: id, charge: "c2" })).rejects.toThrow(
      /payments_one_applied_per_purchase/,
    );
    // Paid twice, or another amount: recorded, and owed back.
    await insertPayment(db, { purchaseId: id, minor: 12_345, applied: false, charge: "c3" });
    await insertPayment(db, { purchaseId: id, applied: false, charge: "c4" });
    const rows = await db
      .selectFrom("payments")
      .select(["charge_id", "minor", "applied", "refund"])
      .where("purchase_id", "=", id)
      .orderBy("charge_id")
      .execute();
    expect(rows.map((row) => ({ ...row, minor: Number(row.minor) }))).toEqual([
      { charge_id: "c1", minor: 70_000, applied: true, refund: "none" },
      { charge_id: "c3", minor: 12_345, applied: false, refund: "due" },
      { charge_id: "c4", minor: 70_000, applied: false, refund: "due" },
    ]);
  });
});

describe.each(LEDGER_ENGINES)("the money records kept as written (0016) on %s", (engine) => {
  const ledger = testLedger(engine, "ledger_guards", { poolSize: 3 });
  let db: Kysely<LedgerTables>;

  beforeAll(() => {
    db = ledger.db;
  });

  const kept = { code: MONEY_RECORD_KEPT };
  const settled = { code: SETTLED_STAYS_SETTLED };

  it("never deletes a payment, nor changes what it was", async () => {
    const id = await insertPurchase(db, purchaseIn("paid"));
    const payment = (await insertPayment(db, { purchaseId: id, charge: "g1" })).rows[0]?.id ?? "";
    await expect(sql`DELETE FROM payments WHERE id = ${payment}`.execute(db)).rejects.toMatchObject(
      {
        code: MONEY_RECORD_KEPT,
        message: `payment ${payment} is a money record: it is never deleted`,
      },
    );
    // Each fact, even to a value the other rules take (a stray's amount, another reference).
    const stray = (
      await insertPayment(db, { purchaseId: id, minor: 500, applied: false, charge: "g2" })
    ).rows[0]?.id;
    for (const change of [
      sql`minor = 600`,
      sql`currency = 'USD'`,
      sql`charge_id = 'g3'`,
      sql`provider_charge_id = 'other'`,
      sql`method = 'khalti'`,
      sql`purchase_id = NULL`,
      sql`payer = 42`,
      sql`received_at = now() - interval '1 day'`,
    ]) {
      await expect(
        sql`UPDATE payments SET ${change} WHERE id = ${stray}`.execute(db),
      ).rejects.toMatchObject(kept);
    }
    await expect(
      sql`DELETE FROM payments WHERE purchase_id = ${id}`.execute(db),
    ).rejects.toMatchObject(kept);
    // A purchase with a payment is kept too (its foreign key).
    await expect(sql`DELETE FROM purchases WHERE id = ${id}`.execute(db)).rejects.toThrow(
      /foreign key/,
    );
    const rows = await db
      .selectFrom("payments")
      .select(["charge_id", "minor", "currency"])
      .where("purchase_id", "=", id)
      .orderBy("charge_id")
      .execute();
    expect(rows.map((row) => ({ ...row, minor: Number(row.minor) }))).toEqual([
      { charge_id: "g1", minor: 70_000, currency: "NPR" },
      { charge_id: "g2", minor: 500, currency: "NPR" },
    ]);
  });

  it("moves a refund only forward: owed, owed no more, done; a refund done stays done", async () => {
    const id = await insertPurchase(db, purchaseIn("paid"));
    const payment = (await insertPayment(db, { purchaseId: id, charge: "r1" })).rows[0]?.id ?? "";
    // What the bot does: owed (refund-due), owed no more (topped up after all), owed, done.
    await sql`UPDATE payments SET refund = 'due', refund_due_at = now(), refund_reason = 'x'
              WHERE id = ${payment}`.execute(db);
    await sql`UPDATE payments SET refund = 'none', refund_due_at = NULL, refund_reason = NULL
              WHERE id = ${payment}`.execute(db);
    // A refund call counted under a live lease (0015-refund-lease), let go as it is done.
    await sql`UPDATE payments SET refund = 'due', refund_due_at = now(), refund_attempts = 1,
                refund_lease_owner = 'desk', refund_lease_until = now() + interval '1 minute'
              WHERE id = ${payment}`.execute(db);
    await sql`UPDATE payments SET refund = 'refunded', refunded_at = now(), refunded_by = 'telegram:1',
                refund_lease_owner = NULL, refund_lease_until = NULL
              WHERE id = ${payment}`.execute(db);
    await expect(
      sql`UPDATE payments SET refund = 'due', refunded_at = NULL, refunded_by = NULL
          WHERE id = ${payment}`.execute(db),
    ).rejects.toMatchObject({
      ...settled,
      message: `payment ${payment} was refunded: its refund stays done`,
    });
    await expect(
      sql`UPDATE payments SET refunded_by = 'telegram:2' WHERE id = ${payment}`.execute(db),
    ).rejects.toMatchObject(settled);
    // Its note may still be written.
    await sql`UPDATE payments SET refund_note = 'bank ref 7' WHERE id = ${payment}`.execute(db);
    const row = await db
      .selectFrom("payments")
      .select(["refund", "refunded_by", "refund_note"])
      .where("id", "=", payment)
      .executeTakeFirst();
    expect(row).toEqual({
      refund: "refunded",
      refunded_by: "telegram:1",
      refund_note: "bank ref 7",
    });
  });

  it("keeps a payment set aside: never deleted, never changed, closed for good", async () => {
    const aside = (charge: string, kind = "payment") =>
      sql<{ id: string }>`
      INSERT INTO payment_anomalies (kind, method, charge_id, purchase_id, currency, amount, reason)
      VALUES (${kind}, 'khalti', ${charge}, 'p-aside', 'NPR', '0', 'impossible amount')
      RETURNING id::text AS id`.execute(db);
    const id = (await aside("s1")).rows[0]?.id ?? "";
    await expect(
      sql`DELETE FROM payment_anomalies WHERE id = ${id}`.execute(db),
    ).rejects.toMatchObject(kept);
    await expect(
      sql`UPDATE payment_anomalies SET amount = '70000' WHERE id = ${id}`.execute(db),
    ).rejects.toMatchObject(kept);
    await expect(
      sql`UPDATE payment_anomalies SET kind = 'unsettled' WHERE id = ${id}`.execute(db),
    ).rejects.toMatchObject(kept);
    // Closed by a person: it stays closed.
    await sql`UPDATE payment_anomalies SET closed_at = now(), closed_by = 'telegram:1'
              WHERE id = ${id}`.execute(db);
    await expect(
      sql`UPDATE payment_anomalies SET closed_at = NULL, closed_by = NULL WHERE id = ${id}`.execute(
        db,
      ),
    ).rejects.toMatchObject({
      ...settled,
      message: `payment set aside ${id} was closed: it stays closed`,
    });
    // An offer raised as unsettled and closed by the bot is taken over by a payment set aside
    // on it later (set-aside.ts), reopened as a payment's: the one way back.
    const unsettled = (await aside("s2", "unsettled")).rows[0]?.id ?? "";
    await sql`UPDATE payment_anomalies SET closed_at = now(), closed_by = 'bot'
              WHERE id = ${unsettled}`.execute(db);
    await sql`UPDATE payment_anomalies SET kind = 'payment', amount = '500', closed_at = NULL,
              closed_by = NULL WHERE id = ${unsettled}`.execute(db);
    const rows = await db
      .selectFrom("payment_anomalies")
      .select(["charge_id", "kind", "amount", "closed_by"])
      .where("charge_id", "in", ["s1", "s2"])
      .orderBy("charge_id")
      .execute();
    expect(rows).toEqual([
      { charge_id: "s1", kind: "payment", amount: "0", closed_by: "telegram:1" },
      { charge_id: "s2", kind: "payment", amount: "500", closed_by: null },
    ]);
  });

  it("never records a payment set aside for a person, open or closed, nor one a person settled by hand; an unsettled offer's is", async () => {
    const id = await insertPurchase(db, purchaseIn("awaiting-payment"));
    const aside = (charge: string, kind: string, closed: boolean) =>
      sql`
      INSERT INTO payment_anomalies (kind, method, charge_id, purchase_id, currency, amount,
                                     reason, closed_at, closed_by)
      VALUES (${kind}, 'telegram', ${charge}, ${id}, 'NPR', '0', 'the amount is not positive',
              ${closed ? new Date() : null}::timestamptz, ${closed ? "telegram:1" : null})`.execute(
        db,
      );
    await aside("p-open", "payment", false);
    await aside("p-closed", "payment", true);
    await aside("p-unsettled", "unsettled", false);
    // An unsettled offer a person settled by hand (/refunded): theirs too.
    await aside("p-unsettled-by-hand", "unsettled", true);
    // Found again with an amount that would pay (a lookup answering otherwise, a replay): refused.
    for (const charge of ["p-open", "p-closed", "p-unsettled-by-hand"]) {
      await expect(
        insertPayment(db, { purchaseId: id, applied: false, charge }),
      ).rejects.toMatchObject({
        code: SET_ASIDE_IS_A_PERSONS,
        message: `payment ${charge} of telegram was set aside for a person: only a person settles it`,
      });
    }
    // An offer only raised as unsettled: its payment is recorded when its system settles it.
    await insertPayment(db, { purchaseId: id, applied: false, charge: "p-unsettled" });
    const rows = await db
      .selectFrom("payments")
      .select("charge_id")
      .where("purchase_id", "=", id)
      .execute();
    expect(rows.map((row) => row.charge_id)).toEqual(["p-unsettled"]);
  });

  it("never reopens a reconciliation finding resolved or settled", async () => {
    const run = await sql<{ id: string }>`
      INSERT INTO reconciliation_runs (first_day, last_day, scheduled, started_by, held_by,
                                       finished_at, lease_until)
      VALUES (current_date, current_date, false, 1, 'test', now(), NULL)
      RETURNING id::text AS id`.execute(db);
    const finding = (status: string) =>
      sql<{ id: string }>`
      INSERT INTO reconciliation_findings (run_id, day, purchase_id, kind, next_step, status,
                                           resolved_by, note, resolved_at)
      VALUES (${run.rows[0]?.id}::bigint, current_date, ${`f-${status}`}, 'paid-not-settled',
              'settle', ${status}, ${status === "resolved" ? 1 : null}::bigint,
              ${status === "open" ? null : "done"}, ${status === "open" ? null : new Date()}::timestamptz)
      RETURNING id::text AS id`.execute(db);
    for (const status of ["resolved", "settled"]) {
      const id = (await finding(status)).rows[0]?.id;
      await expect(
        sql`UPDATE reconciliation_findings SET status = 'open', resolved_by = NULL, note = NULL,
            resolved_at = NULL WHERE id = ${id}::bigint`.execute(db),
      ).rejects.toMatchObject(settled);
      await expect(
        sql`DELETE FROM reconciliation_findings WHERE id = ${id}::bigint`.execute(db),
      ).rejects.toMatchObject(settled);
    }
    // An open one is resolved as the bot does it.
    const open = (await finding("open")).rows[0]?.id;
    await sql`UPDATE reconciliation_findings SET status = 'resolved', resolved_by = 1,
              note = 'ok', resolved_at = now() WHERE id = ${open}::bigint`.execute(db);
    const statuses = await sql<{ status: string }>`
      SELECT status FROM reconciliation_findings ORDER BY purchase_id`.execute(db);
    expect(statuses.rows.map((row) => row.status)).toEqual(["resolved", "resolved", "settled"]);
  });
});

describe.each(LEDGER_ENGINES)("migration 0003-money-rules on %s", (engine) => {
  const logger = captureLogs().logger;
  const opened: LedgerConnection[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((ledger) => ledger.close()));
  });

  /** A ledger migrated as the previous release left it: 0001 and 0002 only. */
  async function previousRelease(): Promise<Kysely<LedgerTables>> {
    const ledger = new LedgerConnection(await ledgerTarget(engine, "ledger_rules", 3), {
      log: logger,
    });
    opened.push(ledger);
    const { error } = await new Migrator({
      db: ledger.db,
      provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
      migrationTableName: "ledger_migrations",
      migrationLockTableName: "ledger_migrations_lock",
    }).migrateTo("0002-payments");
    if (error) throw error;
    return ledger.db;
  }
  const appliedNames = async (db: Kysely<LedgerTables>) =>
    (
      await sql<{ name: string }>`SELECT name FROM ledger_migrations ORDER BY name`.execute(db)
    ).rows.map((row) => row.name);
  /** What 0003 adds, as the catalogue has it: empty while it is not applied. */
  const rulesPresent = async (db: Kysely<LedgerTables>) =>
    (
      await sql<{ name: string }>`
        SELECT to_regclass('purchase_transitions')::text AS name WHERE to_regclass('purchase_transitions') IS NOT NULL
        UNION ALL SELECT tgname::text FROM pg_trigger WHERE NOT tgisinternal
        UNION ALL SELECT conname::text FROM pg_constraint WHERE conname = 'purchases_refund_without_txn'
        UNION ALL SELECT proname::text FROM pg_proc WHERE proname LIKE '%refuse%'`.execute(db)
    ).rows
      .map((row) => row.name)
      .sort();

  /** An event of the past, as a release of its day may have written it. */
  const event = (db: Kysely<LedgerTables>, purchaseId: string, from: string, to: string) =>
    sql`INSERT INTO purchase_events (purchase_id, from_phase, to_phase, actor)
        VALUES (${purchaseId}, ${from}, ${to}, 'old-release')`.execute(db);

  it("stops on rows that break a rule, naming each, and leaves the ledger as it was", async () => {
    const db = await previousRelease();
    const badRefund = await insertPurchase(db, purchaseIn("refund-due", { txn_id: "TXN-R" }));
    const badRefunded = await insertPurchase(db, purchaseIn("refunded", { txn_id: "TXN-D" }));
    const asked = await insertPurchase(db, purchaseIn("paid"));
    const fine = await insertPurchase(db, purchaseIn("charged"));
    const otherAmount = (
      await insertPayment(db, { purchaseId: asked, minor: 60_000, charge: "m1" })
    ).rows[0]?.id;
    const noPurchase = (await insertPayment(db, { purchaseId: null, charge: "m2" })).rows[0]?.id;
    await insertPayment(db, { purchaseId: fine, charge: "m3" });
    await insertPayment(db, { purchaseId: asked, minor: 1, applied: false, charge: "m4" });
    await event(db, fine, "requested", "charged");
    await event(db, fine, "charged", "requested");

    const failure = migrate(db);
    await expect(failure).rejects.toThrow(
      /^migration 0003-money-rules stopped and changed nothing/,
    );
    const message = await failure.then(
      () => "",
      (error: Error) => error.message,
    );
    expect(message).toContain(
      `purchases owed back or refunded with a provider transaction id: ${[badRefund, badRefunded].sort().join(", ")}`,
    );
    expect(message).toContain(
      "applied payments whose amount or currency differs from their purchase's: " +
        `payment ${otherAmount} (purchase ${asked}), payment ${noPurchase} (purchase none)`,
    );
    // The past is named, not a reason in itself; the allowed event is not named.
    expect(message).toMatch(
      new RegExp(
        `purchase histories with a change of phase now refused: ${fine} \\(event \\d+: charged to requested\\)$`,
      ),
    );
    expect(message).not.toContain("requested to charged");

    expect(await appliedNames(db)).toEqual(["0001-purchases", "0002-payments"]);
    expect(await rulesPresent(db)).toEqual([]);
    // Nothing corrected behind anyone's back.
    const purchases = await db
      .selectFrom("purchases")
      .select(["id", "phase", "txn_id"])
      .where("id", "in", [badRefund, badRefunded])
      .orderBy("id")
      .execute();
    expect(purchases.map((row) => row.txn_id).sort()).toEqual(["TXN-D", "TXN-R"]);
    const minor = await db
      .selectFrom("payments")
      .select("minor")
      .where("charge_id", "=", "m1")
      .executeTakeFirst();
    expect(Number(minor?.minor)).toBe(60_000);

    // Corrected by hand, the rows let it through; the old history alone does not stop it.
    await db
      .updateTable("purchases")
      .set({ txn_id: null })
      .where("id", "in", [badRefund, badRefunded])
      .execute();
    await sql`UPDATE payments SET minor = 70000 WHERE charge_id = 'm1'`.execute(db);
    await sql`DELETE FROM payments WHERE charge_id = 'm2'`.execute(db);
    // Every one after the two the old history has.
    expect(await migrate(db)).toEqual(EVERY_MIGRATION.slice(2));
    expect(await appliedNames(db)).toEqual(EVERY_MIGRATION);
    // With the later migrations' own (0006: offers recorded, a payment only by a method offered;
    // 0007: provider balance entries append-only, purchases' charged_at; 0009: the offer of a
    // purchase ended unpaid watched; 0011: a payment applied only when its payer, where known,
    // is the buyer; 0015: a refund call counted only under a live lease on the refund).
    expect(await rulesPresent(db)).toEqual([
      "payment_anomalies_record_kept",
      "payment_anomalies_refuse_rewrite",
      "payments_applied_amount",
      "payments_applied_amount_changed",
      "payments_applied_offered",
      "payments_applied_offered_changed",
      "payments_applied_payer",
      "payments_record_kept",
      "payments_refund_call_leased",
      "payments_refuse_other_amount",
      "payments_refuse_other_payer",
      "payments_refuse_rewrite",
      "payments_refuse_set_aside",
      "payments_refuse_unoffered",
      "payments_set_aside_a_persons",
      "provider_balance_entries_append_only",
      "purchase_transitions",
      "purchases_asked_change",
      "purchases_charged_at",
      "purchases_offer_changed",
      "purchases_offer_created",
      "purchases_offer_unpaid",
      "purchases_phase_change",
      "purchases_refund_without_txn",
      "purchases_refuse_asked_change",
      "purchases_refuse_phase_change",
      "reconciliation_findings_refuse_reopen",
      "reconciliation_findings_stay_settled",
    ]);
    const history = await db
      .selectFrom("purchase_events")
      .select(["from_phase", "to_phase"])
      .where("purchase_id", "=", fine)
      .orderBy("id")
      .execute();
    expect(history).toEqual([
      { from_phase: "requested", to_phase: "charged" },
      { from_phase: "charged", to_phase: "requested" },
    ]);
  });
});
