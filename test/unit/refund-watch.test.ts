// The refund watch asks the ledger for the watched systems' refunds only, a page a pass, going
// on from where the last pass stopped: refunds owed on other systems never crowd them out.
import { describe, expect, it } from "vitest";
import type { PaymentSystem, Refund, RefundsPage } from "../../src/domain/payment.js";
import { RefundWatch } from "../../src/domain/refund-watch.js";
import { purchaseOf } from "../support/purchases.js";

const log = { info() {}, warn() {}, error() {}, debug() {} } as never;

function refund(index: number, method: "esewa" | "telegram"): Refund {
  return {
    paymentId: String(index),
    purchaseId: `p${index}`,
    buyer: 7,
    language: "en",
    method,
    currency: "NPR",
    minor: 70_000,
    chargeId: `c${index}`,
    providerChargeId: null,
    receivedAt: index,
    dueSince: index,
    attempts: 0,
  } as Refund;
}

describe("the refund watch", () => {
  it("pages through the watched systems' refunds only, past older ones of other systems", async () => {
    // 150 Telegram refunds owed before 150 eSewa ones; eSewa says the last one went back.
    const owed = [
      ...Array.from({ length: 150 }, (_, i) => refund(i, "telegram")),
      ...Array.from({ length: 150 }, (_, i) => refund(150 + i, "esewa")),
    ];
    const asked: RefundsPage[] = [];
    const ledger = {
      async refundsDue(count: number, page: RefundsPage = {}) {
        asked.push(page);
        return owed
          .filter((r) => !page.methods || page.methods.includes(r.method))
          .filter((r) => !page.after || r.dueSince > page.after.dueSince)
          .slice(0, count);
      },
    };
    const looked: string[] = [];
    const esewa = {
      async lookup(purchase: { payment?: { offer?: string } }) {
        const charge = purchase.payment?.offer ?? "";
        looked.push(charge);
        return charge === "c299" ? { state: "refunded" } : { state: "waiting", pending: false };
      },
    } as unknown as PaymentSystem;
    const book = {
      async get(id: string) {
        return purchaseOf({
          id,
          payment: { method: "esewa", currency: "NPR", minor: 70_000, expiresAt: 0, offer: "x" },
        });
      },
    };
    const marked: string[] = [];
    const desk = {
      async markRefunded(paymentId: string) {
        marked.push(paymentId);
        return true;
      },
    };
    const watch = new RefundWatch(
      ledger as never,
      book as never,
      new Map([["esewa", esewa]]) as never,
      desk as never,
      60_000,
      log,
    );
    watch.start();
    expect(await watch.runOnce()).toBe(0);
    expect(await watch.runOnce()).toBe(1);
    expect(marked).toEqual(["299"]);
    expect(asked.every((page) => page.methods?.join() === "esewa")).toBe(true);
    expect(looked).toHaveLength(150);
    expect(looked.every((charge) => /^c(1[5-9]\d|2\d\d)$/.test(charge))).toBe(true);
    // The last page was short: the next pass starts over from the oldest.
    await watch.runOnce();
    expect(asked.at(-1)?.after).toBeUndefined();
    await watch.stop();
  });
});
