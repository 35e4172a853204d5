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
import { MIGRATIONS } from "../../src/adapters/ledger/migrations/index.js";
import type { LedgerTables, PurchaseRow } from "../../src/adapters/ledger/schema.js";
import { OPEN_PHASES, PURCHASE_PHASES, type PurchasePhase } from "../../src/domain/purchase.js";
import { phaseChanges } from "../../src/domain/purchase-machine.js";
import { LEDGER_ENGINES, ledgerTarget, testLedger } from "../support/ledger-fixture.js";
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

describe("the allowed changes of phase", () => {
  it("are the domain's list, pairs of known phases, each once", () => {
    expect(ALLOWED_PHASE_CHANGES.map(key).sort()).toEqual(ALLOWED.map(key).sort());
    expect(new Set(ALLOWED_PHASE_CHANGES.map(key)).size).toBe(25);
    for (const [from, to] of ALLOWED_PHASE_CHANGES) {
      expect(PHASES).toContain(from);
      expect(PHASES).toContain(to);
    }
  });

  it("leave every other change forbidden, the finished phases' first", () => {
    expect(FORBIDDEN).toHaveLength(PHASES.length * (PHASES.length - 1) - 25);
    const forbidden = new Set(FORBIDDEN.map(key));
    for (const finished of ["charged", "refunded", "not-charged", "unpaid"] as const) {
      for (const to of PHASES.filter((phase) => phase !== finished)) {
        expect(forbidden).toContain(key([finished, to]));
      }
    }
    for (const pair of [
      ["unpaid", "paid"],
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
    // Marking a refund (no amount at stake) is not in the way.
    await sql`UPDATE payments SET refund_attempts = refund_attempts + 1 WHERE id = ${stray}`.execute(
      db,
    );
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
    expect(await migrate(db)).toEqual([
      "0003-money-rules",
      "0004-purchase-versions",
      "0005-esewa",
      "0006-payment-offers",
      "0007-provider-balance",
      "0008-reconciliation",
    ]);
    expect(await appliedNames(db)).toEqual([
      "0001-purchases",
      "0002-payments",
      "0003-money-rules",
      "0004-purchase-versions",
      "0005-esewa",
      "0006-payment-offers",
      "0007-provider-balance",
      "0008-reconciliation",
    ]);
    // With the later migrations' own (0006: offers recorded, a payment only by a method offered;
    // 0007: provider balance entries append-only, purchases' charged_at).
    expect(await rulesPresent(db)).toEqual([
      "payments_applied_amount",
      "payments_applied_amount_changed",
      "payments_applied_offered",
      "payments_applied_offered_changed",
      "payments_refuse_other_amount",
      "payments_refuse_unoffered",
      "provider_balance_entries_append_only",
      "purchase_transitions",
      "purchases_asked_change",
      "purchases_charged_at",
      "purchases_offer_changed",
      "purchases_offer_created",
      "purchases_phase_change",
      "purchases_refund_without_txn",
      "purchases_refuse_asked_change",
      "purchases_refuse_phase_change",
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
