// The ledger's side of the daily reconciliation: which purchases belong to a day of the
// provider's zone (Kathmandu is UTC+5:45), read by keyset pages, with their payments, offers
// and checkout tokens, amounts exact in paisa.
import { beforeAll, describe, expect, it } from "vitest";
import { LedgerDays } from "../../src/adapters/ledger/reconciliation-days.js";
import type { LedgerSide } from "../../src/domain/daily-reconciliation.js";
import { LEDGER_ENGINES, testLedger } from "../support/ledger-fixture.js";
import {
  insertPayments,
  insertRows,
  ledgerRow,
  paidLedgerRow,
  paymentOf,
  strayPayment,
} from "../support/ledger-rows.js";

const DAY = "2026-03-01";
/** 23:30 on March 1 in Kathmandu, and 00:30 on March 2. */
const LATE = new Date("2026-03-01T17:45:00Z");
const NEXT = new Date("2026-03-01T18:45:00Z");
const MORNING = new Date("2026-03-01T06:00:00Z");
const BEFORE = new Date("2026-02-20T06:00:00Z");

describe.each(LEDGER_ENGINES)("a day's purchases for the reconciliation on %s", (engine) => {
  const ledger = testLedger(engine, "reconciliation-days");
  const days = () =>
    new LedgerDays(ledger.connection, { timeZone: "Asia/Kathmandu", minorDigits: 2 });

  const offer = (purchaseId: string, method: string, handle: string, at: Date) =>
    ledger.db
      .insertInto("payment_offers")
      .values({
        purchase_id: purchaseId,
        method,
        handle,
        offered_at: at,
        withdrawn_at: null,
        next_look_at: null,
        closed_at: null,
      })
      .execute();
  const checkout = (purchaseId: string, checkoutId: string, at: Date) =>
    ledger.db
      .insertInto("purchase_checkouts")
      .values({ purchase_id: purchaseId, checkout_id: checkoutId, taken_at: at })
      .execute();

  /** Every purchase of the day, read `limit` at a time. */
  async function allOf(day: string, limit: number): Promise<LedgerSide[]> {
    const all: LedgerSide[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await days().purchasesOfDay(day, after, limit);
      all.push(...page);
      const last = page.at(-1);
      if (!last || page.length < limit) return all;
      after = last.purchaseId;
    }
  }

  beforeAll(async () => {
    // Offered by Khalti at 23:30 on March 1, paid at 00:30 on March 2: on both days.
    const late = paidLedgerRow({
      id: "rd-late",
      created_at: LATE,
      price: "699.50",
      payment_method: "khalti",
      payment_minor: 69_950,
      payment_charge_id: "pidx-late",
      paid_at: NEXT,
    });
    // Offered by Khalti at 00:30 on March 2, not paid: March 2 only.
    const next = paidLedgerRow({
      id: "rd-next",
      created_at: NEXT,
      phase: "awaiting-payment",
      price: "700.500",
      payment_method: "khalti",
      payment_minor: 70_050,
    });
    // Agent mode: no payment, two checkout tokens, one of them the purchase's own.
    const agent = ledgerRow({
      id: "rd-agent",
      created_at: MORNING,
      price: "90071992547409.93",
      checkout_id: "co-agent-2",
      checkout_issued_at: MORNING,
    });
    // eSewa offered twice that day; the second offer paid, then refunded.
    const refunded = paidLedgerRow({
      id: "rd-esewa",
      created_at: MORNING,
      phase: "refunded",
      payment_method: "esewa",
      payment_charge_id: "uuid-2",
    });
    // Paid on another day: not this day's.
    const earlier = paidLedgerRow({ id: "rd-earlier", created_at: BEFORE });
    await insertRows(ledger.db, [late, next, agent, refunded, earlier]);
    await offer("rd-late", "khalti", "pidx-late", LATE);
    await offer("rd-next", "khalti", "pidx-next", NEXT);
    await checkout("rd-agent", "co-agent-1", MORNING);
    await checkout("rd-agent", "co-agent-2", new Date(MORNING.getTime() + 60_000));
    await offer("rd-esewa", "esewa", "uuid-1", MORNING);
    await offer("rd-esewa", "esewa", "uuid-2", new Date(MORNING.getTime() + 60_000));
    await offer("rd-earlier", "telegram", "message-1", BEFORE);
    await insertPayments(ledger.db, [
      paymentOf(late, { method: "khalti", received_at: NEXT }),
      paymentOf(refunded, { method: "esewa", received_at: new Date(MORNING.getTime() + 120_000) }),
      paymentOf(earlier, { received_at: BEFORE }),
      strayPayment({ received_at: MORNING, minor: 70_000 }),
    ]);
    // Purchases of the day beyond a page: each only a checkout token taken that day.
    const many = Array.from({ length: 5 }, (_, index) =>
      ledgerRow({ id: `rd-many-${index}`, created_at: MORNING }),
    );
    await insertRows(ledger.db, many);
    for (const row of many) await checkout(row.id, `co-${row.id}`, MORNING);
  });

  it("takes a purchase whose offer, payment or checkout token fell in the day, in its zone", async () => {
    const ofDay = await allOf(DAY, 200);
    expect(ofDay.map((side) => side.purchaseId)).toEqual([
      "rd-agent",
      "rd-esewa",
      "rd-late",
      "rd-many-0",
      "rd-many-1",
      "rd-many-2",
      "rd-many-3",
      "rd-many-4",
    ]);
    const nextDay = await allOf("2026-03-02", 200);
    expect(nextDay.map((side) => side.purchaseId)).toEqual(["rd-late", "rd-next"]);
    expect(await allOf("2026-02-20", 200)).toMatchObject([{ purchaseId: "rd-earlier" }]);
    expect(await allOf("2026-03-03", 200)).toEqual([]);
  });

  it("reads the day a page at a time, after the last purchase of the page before", async () => {
    const whole = await allOf(DAY, 200);
    expect(await allOf(DAY, 3)).toEqual(whole);
    expect(await allOf(DAY, 1)).toEqual(whole);
    const after = await days().purchasesOfDay(DAY, "rd-late", 2);
    expect(after.map((side) => side.purchaseId)).toEqual(["rd-many-0", "rd-many-1"]);
  });

  it("a payment recorded stands for the offer it paid; an offer not paid is asked about", async () => {
    const [late] = await days().purchasesOfDay(DAY, "rd-esewa", 1);
    expect(late).toEqual({
      purchaseId: "rd-late",
      phase: "charged",
      priceMinor: 69_950n,
      agentMode: false,
      payments: [
        {
          system: "khalti",
          id: "pidx-late",
          amountMinor: 69_950n,
          refunded: false,
          recorded: true,
        },
      ],
      checkoutIds: [],
      // The provider's transaction the ledger holds, named beside the checkout ids found.
      txnId: expect.stringMatching(/^TXN-/),
    });
    const [next] = await days().purchasesOfDay("2026-03-02", "rd-late", 1);
    expect(next).toEqual({
      purchaseId: "rd-next",
      phase: "awaiting-payment",
      priceMinor: 70_050n,
      agentMode: false,
      payments: [
        {
          system: "khalti",
          id: "pidx-next",
          amountMinor: 70_050n,
          refunded: false,
          recorded: false,
        },
      ],
      checkoutIds: [],
      txnId: null,
    });
    const [esewa] = await days().purchasesOfDay(DAY, "rd-agent", 1);
    expect(esewa).toMatchObject({ purchaseId: "rd-esewa", phase: "refunded", priceMinor: 70_000n });
    expect(esewa?.payments).toEqual([
      { system: "esewa", id: "uuid-2", amountMinor: 70_000n, refunded: true, recorded: true },
      { system: "esewa", id: "uuid-1", amountMinor: 70_000n, refunded: false, recorded: false },
    ]);
  });

  it("an agent-mode purchase: no payment, its checkout tokens once each, its price exact", async () => {
    const [agent] = await days().purchasesOfDay(DAY, null, 1);
    expect(agent).toEqual({
      purchaseId: "rd-agent",
      phase: "charged",
      priceMinor: 9_007_199_254_740_993n,
      agentMode: true,
      payments: [],
      checkoutIds: ["co-agent-1", "co-agent-2"],
      txnId: expect.stringMatching(/^TXN-/),
    });
  });
});
