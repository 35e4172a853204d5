import { describe, expect, it } from "vitest";
import {
  compare,
  type DaySources,
  type LedgerSide,
  type PaymentAnswer,
  type ProviderAnswer,
  reconcileDay,
} from "../../src/domain/daily-reconciliation.js";

const ledger = (over: Partial<LedgerSide> = {}): LedgerSide => ({
  purchaseId: "p1",
  phase: "charged",
  priceMinor: 50000n,
  agentMode: false,
  payments: [
    { system: "khalti", id: "pidx1", amountMinor: 50000n, refunded: false, recorded: true },
  ],
  checkoutIds: ["c1"],
  ...over,
});
const paid = (over: Partial<Extract<PaymentAnswer, { asked: true }>> = {}): PaymentAnswer => ({
  asked: true,
  system: "khalti",
  id: "pidx1",
  paid: true,
  refunded: false,
  amountMinor: 50000n,
  ...over,
});
const executed = (
  over: Partial<Extract<ProviderAnswer, { asked: true }>> = {},
): ProviderAnswer => ({
  asked: true,
  checkoutId: "c1",
  executed: true,
  amountMinor: 50000n,
  ...over,
});
const kinds = (...args: Parameters<typeof compare>) => compare(...args).map((f) => f.kind);

describe("the daily reconciliation's comparison", () => {
  it("finds nothing on a matched purchase", () => {
    expect(compare(ledger(), [paid()], [executed()])).toEqual([]);
  });
  it("paid but neither topped up nor refunded", () => {
    expect(kinds(ledger({ phase: "paid" }), [paid()], [executed({ executed: false })])).toEqual([
      "paid-not-settled",
    ]);
  });
  it("topped up with no payment recorded, agent mode excepted", () => {
    expect(kinds(ledger({ payments: [] }), [], [executed()])).toEqual(["topped-up-unpaid"]);
    expect(kinds(ledger({ payments: [], agentMode: true }), [], [executed()])).toEqual([]);
  });
  it("amounts that differ, with both amounts exact", () => {
    const [finding] = compare(ledger(), [paid({ amountMinor: 40000n })], [executed()]);
    expect(finding).toMatchObject({
      kind: "amount-differs",
      ledgerMinor: 50000n,
      outsideMinor: 40000n,
    });
    expect(kinds(ledger(), [paid()], [executed({ amountMinor: 50001n })])).toEqual([
      "amount-differs",
    ]);
  });
  it("refunded outside only, and in the ledger only", () => {
    expect(kinds(ledger({ phase: "charged" }), [paid({ refunded: true })], [executed()])).toEqual([
      "refunded-outside-only",
    ]);
    const refundedInLedger = ledger({
      phase: "refunded",
      payments: [
        { system: "khalti", id: "pidx1", amountMinor: 50000n, refunded: true, recorded: true },
      ],
    });
    expect(kinds(refundedInLedger, [paid()], [])).toEqual(["refunded-ledger-only"]);
  });
  it("given back in part outside the bot, as recorded: the rest owed until refunded", () => {
    const part = (refunded: boolean) =>
      ledger({
        phase: "unpaid",
        payments: [
          {
            system: "khalti",
            id: "pidx1",
            amountMinor: 50000n,
            refunded,
            recorded: true,
            refundedInPart: true,
          },
        ],
      });
    const [finding] = compare(part(false), [paid({ refunded: true })], []);
    expect(finding).toMatchObject({ kind: "rest-owed", ledgerMinor: 50000n });
    expect(finding?.nextStep).toContain("refund the rest");
    expect(kinds(part(true), [paid({ refunded: true })], [])).toEqual([]);
  });
  it("a provider transaction for a purchase not charged or refunded", () => {
    expect(kinds(ledger({ phase: "not-charged" }), [paid()], [executed()])).toEqual([
      "provider-charged-unexpectedly",
    ]);
  });
  it("a recorded payment the payment system does not have; an offer paid but never recorded", () => {
    expect(kinds(ledger(), [paid({ paid: false })], [executed()])).toEqual(["payment-not-found"]);
    const offerOnly = ledger({
      phase: "not-charged",
      payments: [
        { system: "khalti", id: "pidx1", amountMinor: 50000n, refunded: false, recorded: false },
      ],
      checkoutIds: [],
    });
    expect(kinds(offerOnly, [paid()], [])).toEqual(["paid-not-settled"]);
    expect(kinds(offerOnly, [paid({ paid: false })], [])).toEqual([]);
  });
  it("charged in the ledger, no transaction at the provider for any checkout", () => {
    expect(kinds(ledger(), [paid()], [executed({ executed: false })])).toEqual([
      "charged-not-executed",
    ]);
    expect(kinds(ledger(), [paid()], [{ asked: false, checkoutId: "c1" }])).toEqual(["not-asked"]);
    expect(
      kinds(ledger(), [paid()], [executed({ executed: false }), executed({ checkoutId: "c2" })]),
    ).toEqual([]);
  });
  it("two payments or two top-ups", () => {
    expect(kinds(ledger(), [paid(), paid({ id: "pidx2" })], [executed()])).toContain("paid-twice");
    expect(kinds(ledger(), [paid()], [executed(), executed({ checkoutId: "c2" })])).toContain(
      "topped-up-twice",
    );
  });
  it("a party that could not be asked is reported, never matched", () => {
    const findings = compare(
      ledger(),
      [{ asked: false, system: "khalti", id: "pidx1", reason: "timeout" }],
      [{ asked: false, checkoutId: "c1" }],
    );
    expect(findings.map((f) => [f.kind, f.outsideIds])).toEqual([
      ["not-asked", "khalti:pidx1"],
      ["not-asked", "provider:c1"],
    ]);
  });
});

describe("the provider's transaction beside each checkout", () => {
  it("is named in every finding: executed, not executed, not asked, and the ledger's own", () => {
    const side = ledger({ phase: "paid", checkoutIds: ["c1", "c2", "c3"], txnId: "T-LEDGER" });
    const findings = compare(
      side,
      [paid()],
      [
        executed({ executed: false }),
        executed({ checkoutId: "c2", executed: false }),
        { asked: false, checkoutId: "c3" },
      ],
    );
    expect(findings.map((f) => f.kind)).toEqual(["not-asked", "paid-not-settled"]);
    for (const finding of findings) {
      expect(finding.providerTxns).toBe("c1=none c2=none c3=? ledger=T-LEDGER");
    }
    const charged = compare(
      ledger({ txnId: "T9" }),
      [paid({ amountMinor: 1n })],
      [executed({ txnId: "T9" })],
    );
    expect(charged.map((f) => [f.kind, f.providerTxns])).toEqual([["amount-differs", "c1=T9"]]);
    // Executed without a transaction id stated: said so, never left out.
    const [unstated] = compare(ledger({ phase: "not-charged" }), [paid()], [executed()]);
    expect(unstated?.providerTxns).toBe("c1=?");
  });
});

describe("a day's run", () => {
  const purchases = Array.from({ length: 450 }, (_, i) =>
    ledger({
      purchaseId: `p${String(i).padStart(4, "0")}`,
      payments: [
        {
          system: i % 2 ? "telegram" : "khalti",
          id: `x${i}`,
          amountMinor: 50000n,
          refunded: false,
          recorded: true,
        },
      ],
    }),
  );
  const sources = (providerUp: (id: string) => boolean): DaySources => ({
    purchasesOfDay: async (_day, after, limit) =>
      purchases.filter((p) => after === null || p.purchaseId > after).slice(0, limit),
    canAsk: (system) => system !== "telegram",
    askPayment: async () => ({ paid: true, refunded: false, amountMinor: 50000n }),
    askProvider: async (id) => ({ executed: providerUp(id), amountMinor: 50000n }),
    ask: async (call) => ({ asked: true, answer: await call() }),
  });

  it("goes through every purchase page by page, resumable after the last one done", async () => {
    const done: string[] = [];
    let findings = 0;
    await reconcileDay(
      "2026-11-20",
      sources(() => true),
      async (f, last) => {
        findings += f.length;
        done.push(last);
      },
    );
    expect(done).toHaveLength(450);
    expect(findings).toBe(0);
    const resumed: string[] = [];
    await reconcileDay(
      "2026-11-20",
      sources(() => true),
      async (_f, last) => void resumed.push(last),
      "p0399",
    );
    expect(resumed).toHaveLength(50);
  });

  it("reports a purchase paid but never executed at the provider", async () => {
    const kindsFound: string[] = [];
    await reconcileDay(
      "2026-11-20",
      {
        ...sources(() => true),
        purchasesOfDay: async (_d, after) => (after ? [] : [ledger({ phase: "paid" })]),
        askProvider: async () => ({ executed: false, amountMinor: null }),
      },
      async (f) => void kindsFound.push(...f.map((x) => x.kind)),
    );
    expect(kindsFound).toEqual(["paid-not-settled"]);
  });
});
