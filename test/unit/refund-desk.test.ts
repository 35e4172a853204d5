// Which refunds the bot issues through a payment system's API, and with what (issue 36's review,
// finding 12): a payment given back in part outside the bot by an amount nobody states leaves
// the rest unknown, and an empty ("full") refund's meaning for it is not documented, so a person
// refunds the rest; a stated part is refunded as `{amount}`: the rest, never the whole again.
import { describe, expect, it } from "vitest";
import type { PaymentSystem, Refund, RefundsPage } from "../../src/domain/payment.js";
import { type RefundAlertKind, RefundDesk, restUnknown } from "../../src/domain/refunds.js";

const log = { info() {}, warn() {}, error() {}, debug() {} };

const owed = (overrides: Partial<Refund> = {}): Refund => ({
  paymentId: "1",
  purchaseId: null,
  buyer: 5,
  language: "en",
  method: "khalti",
  currency: "NPR",
  minor: 70_000,
  chargeId: "pidx-1",
  providerChargeId: "K-1",
  receivedAt: 0,
  dueSince: 0,
  attempts: 0,
  ...overrides,
});

function desk() {
  const calls: { refund: Refund; mobile: string | undefined }[] = [];
  const alerts: RefundAlertKind[] = [];
  const marked: string[] = [];
  const khalti = {
    method: "khalti",
    async refund(refund: Refund, mobile?: string) {
      calls.push({ refund, mobile });
      return "refunded" as const;
    },
  } as unknown as PaymentSystem;
  const ledger = {
    claimRefund: async () => ({ state: "claimed", attempts: 0, sent: false }),
    releaseRefund: async () => undefined,
    refundAnswered: async () => undefined,
    countRefundAttempt: async () => 1,
    markRefunded: async (paymentId: string) => {
      marked.push(paymentId);
      return null;
    },
    refundsDue: async () => [] as Refund[],
  };
  const refunds = new RefundDesk(
    {} as never,
    ledger as never,
    {} as never,
    {
      alertOperators: async (_refund, about) => void alerts.push(about),
      tellBuyer: async () => undefined,
    },
    async () => "owed",
    log,
    { systems: new Map([["khalti", khalti]]), retryMs: 1, maxAttempts: 3, leaseMs: 30_000 },
  );
  return { refunds, calls, alerts, marked };
}

describe("a payment given back in part outside the bot", () => {
  it("by an amount nobody states: the rest is a person's, never an empty refund through the API", async () => {
    const { refunds, calls, alerts } = desk();
    const part = owed({ refundedOutside: { at: 0, minor: null } });
    expect(restUnknown(part)).toBe(true);
    await refunds.owe(part);
    await refunds.stop();
    expect(calls).toEqual([]);
    expect(alerts).toEqual(["part-refunded-due"]);
  });

  it("by a stated amount: the rest refunded through the API", async () => {
    const { refunds, calls, alerts, marked } = desk();
    await refunds.owe(owed({ refundedOutside: { at: 0, minor: 20_000 } }));
    await refunds.stop();
    expect(alerts).toEqual(["part-refunded-refunding"]);
    expect(calls).toHaveLength(1);
    expect(marked).toEqual(["1"]);
  });

  it("at start, the one whose rest is unknown is not taken up by the API", async () => {
    const { refunds, calls } = desk();
    const due = [owed({ refundedOutside: { at: 0, minor: null } }), owed({ paymentId: "2" })];
    (refunds as unknown as { ledger: { refundsDue: () => Promise<Refund[]> } }).ledger.refundsDue =
      async () => due;
    await refunds.resume();
    await refunds.stop();
    expect(calls.map((call) => call.refund.paymentId)).toEqual(["2"]);
  });

  it("at start, takes up every refund owed through an API, however many are owed by hand", async () => {
    const { refunds, calls } = desk();
    // 250 card refunds owed by hand before one Khalti refund.
    const due = [
      ...Array.from({ length: 250 }, (_, i) =>
        owed({ paymentId: `t${i}`, method: "telegram", dueSince: i }),
      ),
      owed({ paymentId: "k", dueSince: 1_000 }),
    ];
    const pages: RefundsPage[] = [];
    (refunds as unknown as { ledger: { refundsDue: unknown } }).ledger.refundsDue = async (
      count: number,
      page: RefundsPage = {},
    ) => {
      pages.push(page);
      return due
        .filter((r) => !page.methods || page.methods.includes(r.method))
        .filter((r) => !page.after || r.dueSince > page.after.dueSince)
        .slice(0, count);
    };
    await refunds.resume();
    await refunds.stop();
    expect(calls.map((call) => call.refund.paymentId)).toEqual(["k"]);
    expect(pages.every((page) => page.methods?.join() === "khalti")).toBe(true);
  });
});
