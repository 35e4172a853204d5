import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { ProviderBalanceStore } from "../../src/adapters/ledger/provider-balance.js";
import { LEDGER_ENGINES, testLedger } from "../support/ledger-fixture.js";
import { ledgerRow } from "../support/ledger-rows.js";

describe.each(LEDGER_ENGINES)("the provider balance on %s", (engine) => {
  const ledger = testLedger(engine, "provider-balance");

  const charge = async (price: string, txnAmount: string | null) => {
    const row = ledgerRow({ created_at: new Date(), phase: "charged" });
    await ledger.db
      .insertInto("purchases")
      .values({ ...row, price, txn_id: `TXN-${row.id}`, txn_amount: txnAmount, due_at: null })
      .execute();
  };

  it("expects the last reading plus deposits less the top-ups charged since", async () => {
    const store = new ProviderBalanceStore(ledger.connection, 2);
    expect((await store.expected()).expectedMinor).toBe(0n);
    await charge("100", "100"); // before any reading: counted against zero
    expect((await store.expected()).expectedMinor).toBe(-10_000n);
    await store.record({ kind: "reading", amountMinor: 12_345_650n, note: "", admin: 1 });
    await store.record({ kind: "deposit", amountMinor: 5_000_000n, note: "bank", admin: 1 });
    // PGlite's clock counts milliseconds: a charge in the very millisecond of the reading is at
    // the same instant, neither before nor after it. The charges come a moment later.
    await new Promise((resolve) => setTimeout(resolve, 3));
    await charge("700", "699.5");
    await charge("65.5", null);
    const balance = await store.expected();
    expect(balance.lastReading?.amountMinor).toBe(12_345_650n);
    expect(balance.depositsSinceMinor).toBe(5_000_000n);
    expect(balance.chargedSinceMinor).toBe(76_500n);
    expect(balance.expectedMinor).toBe(12_345_650n + 5_000_000n - 76_500n);
  });

  it("refuses any change or removal of an entry", async () => {
    const store = new ProviderBalanceStore(ledger.connection, 2);
    await store.record({ kind: "deposit", amountMinor: 100n, note: "", admin: 1 });
    await expect(
      sql`UPDATE provider_balance_entries SET amount_minor = 1`.execute(ledger.db),
    ).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM provider_balance_entries`.execute(ledger.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(
      store.record({ kind: "deposit", amountMinor: -1n, note: "", admin: 1 }),
    ).rejects.toThrow();
  });

  it("sets each reading of the days asked against the balance expected just before it", async () => {
    await sql`TRUNCATE provider_balance_entries`.execute(ledger.db);
    await ledger.empty();
    const store = new ProviderBalanceStore(ledger.connection, 2);
    const entry = (kind: string, minor: number, at: string) =>
      sql`INSERT INTO provider_balance_entries (kind, amount_minor, admin, recorded_at)
        VALUES (${kind}, ${minor}, 1, ${at}::timestamptz)`.execute(ledger.db);
    const charged = async (
      price: string,
      txnAmount: string | null,
      at: string,
      phase = "charged",
    ) => {
      const row = ledgerRow({ created_at: new Date(at), phase });
      await ledger.db
        .insertInto("purchases")
        .values({ ...row, price, txn_amount: txnAmount, charged_at: at } as typeof row)
        .execute();
    };
    // Kathmandu is UTC+5:45: 18:00Z is 23:45 on March 1, 18:30Z 00:15 on March 2.
    await charged("50", "50", "2026-02-28T05:00:00Z");
    await entry("reading", 1_000_000, "2026-02-28T06:00:00Z");
    await entry("deposit", 500_000, "2026-02-28T07:00:00Z");
    await charged("700", "699.5", "2026-03-01T05:00:00Z");
    await charged("65.5", null, "2026-03-01T17:00:00Z");
    await charged("100", "100", "2026-03-01T18:00:00Z"); // the reading's very moment: before it
    await charged("900", null, "2026-03-01T17:30:00Z", "refunded"); // not charged: not counted
    await entry("reading", 1_413_000, "2026-03-01T18:00:00Z");
    await charged("200", "200", "2026-03-01T18:10:00Z");
    await entry("deposit", 1_000, "2026-03-01T18:20:00Z");
    await entry("reading", 1_395_000, "2026-03-01T18:30:00Z");

    expect(await store.drifts("2026-03-01", "2026-03-01", "Asia/Kathmandu")).toEqual([
      {
        at: new Date("2026-03-01T18:00:00Z"),
        readingMinor: 1_413_000n,
        expectedMinor: 1_000_000n + 500_000n - 69_950n - 6_550n - 10_000n,
      },
    ]);
    const all = await store.drifts("2026-02-28", "2026-03-02", "Asia/Kathmandu");
    expect(all.map((drift) => [drift.readingMinor, drift.expectedMinor])).toEqual([
      [1_000_000n, -5_000n],
      [1_413_000n, 1_413_500n],
      [1_395_000n, 1_413_000n - 20_000n + 1_000n],
    ]);
    expect(await store.drifts("2026-03-01", "2026-03-01", "UTC")).toHaveLength(2);
    expect(await store.drifts("2026-03-03", "2026-03-09", "Asia/Kathmandu")).toEqual([]);
  });
});
