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
});
