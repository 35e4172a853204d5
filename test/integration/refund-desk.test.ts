// The refund desk over the real ledger and Khalti's sandbox, behind a gateway of the test's own
// that holds one answer while another desk goes: only the holder of the lease on a payment's
// refund calls Khalti's refund, so two desks (two replicas, or two paths of one) racing on one
// refund make one call. A refund call whose answer is lost (a proxy's page after forwarding it,
// no answer in time, a dropped connection) is recorded as sent, outcome unknown, and found out
// by Khalti's lookup (Refunded): never called again blindly, never forgotten.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { KhaltiPayments } from "../../src/adapters/payments/khalti/khalti.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { PaymentLinkChannel, Refund, RefundClaim } from "../../src/domain/payment.js";
import { PurchaseBook } from "../../src/domain/purchase-book.js";
import { type LastLook, RefundDesk } from "../../src/domain/refunds.js";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import { type GatewayProxy, gatewayPage, startGatewayProxy } from "../support/gateway-proxy.js";
import { testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import { awaitingPurchaseOf } from "../support/purchases.js";
import { until } from "../support/wait.js";

const SECRET = "refund-desk-secret";
const ledger = testLedger("PGlite", "refund_desk");
const { logger } = captureLogs();
let store: LedgerPurchases;
let khalti: KhaltiSandbox;
let gateway: GatewayProxy;
let desks: RefundDesk[] = [];

const links: PaymentLinkChannel = {
  show: async () => "message",
  pending: async () => undefined,
  hide: async () => undefined,
};
const khaltiAt = (baseUrl: string, timeoutMs = 2_000) =>
  new KhaltiPayments({ baseUrl, secretKey: SECRET, timeoutMs }, links, {
    returnUrl: "http://127.0.0.1/return",
    websiteUrl: "http://127.0.0.1/",
  });

beforeAll(async () => {
  store = new LedgerPurchases(ledger.connection, "refund-desk");
  khalti = await createKhaltiSandbox({ secretKey: SECRET });
  gateway = await startGatewayProxy(() => khalti.url);
});
afterEach(async () => {
  await Promise.all(desks.map((desk) => desk.stop()));
  desks = [];
  gateway.handle = (_, forward) => forward();
  khalti.reset();
  await ledger.empty();
});
afterAll(async () => {
  await gateway.close();
  await khalti.close();
});

/** A desk of its own (its own lease owner), refunding through the gateway; its claims seen. */
function desk(
  owner: string,
  told: string[] = [],
  claims: RefundClaim[] = [],
  timeoutMs?: number,
  alerts: string[] = [],
  lastLook: LastLook = async () => "owed",
): RefundDesk {
  const book = new PurchaseBook(store, logger);
  const teller = new OutcomeTeller(book, { tell: async () => undefined }, logger);
  const seen = new Proxy(store, {
    get(target, name, receiver) {
      if (name !== "claimRefund") return Reflect.get(target, name, receiver);
      return async (...args: Parameters<LedgerPurchases["claimRefund"]>) => {
        const claim = await target.claimRefund(...args);
        claims.push(claim);
        return claim;
      };
    },
  });
  const made = new RefundDesk(
    book,
    seen,
    teller,
    {
      alertOperators: async (_, about) => void alerts.push(about),
      tellBuyer: async (_, state) => void told.push(`${owner}:${state}`),
    },
    lastLook,
    logger,
    {
      systems: new Map([["khalti", khaltiAt(gateway.url, timeoutMs)]]),
      retryMs: 10,
      maxAttempts: 3,
      leaseMs: 60_000,
      owner,
    },
  );
  desks.push(made);
  return made;
}

/** A Khalti payment made at the sandbox and recorded as paying for nothing: owed back. */
async function owedKhaltiPayment(id: string): Promise<Refund> {
  const purchase = awaitingPurchaseOf({
    id,
    buyer: 7,
    payment: { method: "khalti", currency: "NPR", minor: 70_000, expiresAt: Date.now() + 60_000 },
  });
  const { handle: pidx } = await khaltiAt(khalti.url).offer(purchase, async () => undefined);
  purchase.payment = { ...(purchase.payment as NonNullable<typeof purchase.payment>), offer: pidx };
  const created = await store.create(purchase, 1_000);
  if (created.kind === "created") await created.lease.release();
  const paid = khalti.pay(pidx);
  // Recorded for another amount than asked: it pays for nothing, and is owed back.
  const receipt = await store.receivePayment(
    {
      method: "khalti",
      purchaseId: id,
      currency: "NPR",
      minor: 50_000,
      charge: { id: pidx, providerId: paid.transactionId, at: Date.now() },
    },
    1_000,
  );
  if (receipt.kind !== "stray") throw new Error(`expected a refund owed, got ${receipt.kind}`);
  return receipt.refund;
}

describe("two desks racing on one refund", () => {
  it("one holds the lease while its call is held: the other never calls, one refund reaches Khalti", async () => {
    const refund = await owedKhaltiPayment("race-1");
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    gateway.handle = async (request, forward) => {
      if (!request.path.includes("/refund/")) return forward();
      calls++;
      // The first desk's call is held until the other desk has raced it.
      if (calls === 1) await held;
      return forward();
    };
    const told: string[] = [];
    const claimsOfB: RefundClaim[] = [];
    await desk("desk-a", told).owe(refund);
    await until(() => calls === 1, 3_000);
    // The second desk: the same refund owed again (another replica, the desk's resume).
    await desk("desk-b", told, claimsOfB).resume();
    await until(() => claimsOfB.filter((claim) => claim.state === "held").length >= 2, 3_000);
    expect(calls).toBe(1);
    release();
    await until(async () => (await store.refundsDue(10)).length === 0, 3_000);
    // The loser learns the refund is settled and stops, without a call.
    await until(() => claimsOfB.at(-1)?.state === "settled", 3_000);
    await Promise.all(desks.map((d) => d.stop()));
    expect(calls).toBe(1);
    expect(khalti.calls.refunds()).toBe(1);
    expect(khalti.payment(refund.chargeId)?.status).toBe("Refunded");
    expect(told).toEqual(["desk-a:owed", "desk-a:refunded"]);
  });

  it("a desk takes over a refund whose holder's lease lapsed, and calls once", async () => {
    const refund = await owedKhaltiPayment("race-2");
    // A holder that died mid-refund: its lease lapses.
    expect(await store.claimRefund(refund.paymentId, "desk-dead", 1)).toMatchObject({
      state: "claimed",
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await desk("desk-c").resume();
    await until(async () => (await store.refundsDue(10)).length === 0, 3_000);
    expect(khalti.calls.refunds()).toBe(1);
  });

  it("one desk asked twice for one refund (owed, then resumed) runs one loop and calls once", async () => {
    const refund = await owedKhaltiPayment("race-3");
    let calls = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    gateway.handle = async (request, forward) => {
      if (!request.path.includes("/refund/")) return forward();
      calls++;
      await held;
      return forward();
    };
    const one = desk("desk-d");
    await one.owe(refund);
    await until(() => calls === 1, 3_000);
    await one.resume();
    release();
    await until(async () => (await store.refundsDue(10)).length === 0, 3_000);
    await one.stop();
    expect(calls).toBe(1);
  });
});

/** The ledger's record of a refund: its state, calls counted, whether one is still unknown. */
async function refundRow(paymentId: string) {
  return ledger.db
    .selectFrom("payments")
    .select(["refund", "refund_attempts", "refunded_by", "refund_note", "refund_by_hand"])
    .select((eb) => eb("refund_sent_at", "is not", null).as("sent"))
    .where("id", "=", paymentId)
    .executeTakeFirstOrThrow();
}

const isRefund = (path: string) => path.includes("/refund/");
const isLookup = (path: string) => path === "/api/v2/epayment/lookup/";

describe("a refund call whose answer is lost", () => {
  it.each([
    ["a proxy's 502 after forwarding it", 2_000, false],
    ["no answer within the timeout", 300, true],
  ])(
    "%s: sent once, found refunded by Khalti's lookup, the buyer told",
    async (_, timeoutMs, late) => {
      const refund = await owedKhaltiPayment(`lost-${timeoutMs}`);
      let refundCalls = 0;
      let lookupsBlocked = 2;
      let lookups = 0;
      gateway.handle = async (request, forward) => {
        if (isRefund(request.path)) {
          refundCalls++;
          const answer = await forward();
          // Khalti's own answer, held until the desk gave up on it and asked the lookup.
          if (late) await until(() => lookups >= 1, 10_000);
          return late ? answer : gatewayPage(502, "Bad Gateway");
        }
        if (isLookup(request.path)) {
          lookups++;
          // Khalti cannot be asked for a while: the refund stays sent, unknown, asked again.
          if (lookupsBlocked-- > 0) return gatewayPage(503, "Service Unavailable");
        }
        return forward();
      };
      const told: string[] = [];
      const alerts: string[] = [];
      await desk("desk-l", told, [], timeoutMs, alerts).owe(refund);
      await until(() => lookups >= 1, 5_000);
      expect(await refundRow(refund.paymentId)).toMatchObject({
        refund: "due",
        refund_attempts: 1,
        sent: true,
      });
      await until(async () => (await refundRow(refund.paymentId)).refund === "refunded", 5_000);
      expect(await refundRow(refund.paymentId)).toMatchObject({
        refunded_by: "khalti",
        refund_note: "found refunded by its lookup",
        refund_by_hand: null,
        sent: false,
      });
      expect(lookups).toBeGreaterThanOrEqual(3);
      expect(refundCalls).toBe(1);
      expect(khalti.calls.refunds()).toBe(1);
      expect(khalti.payment(refund.chargeId)?.status).toBe("Refunded");
      expect(told).toEqual(["desk-l:owed", "desk-l:refunded"]);
      expect(alerts).not.toContain("refund-failed");
    },
  );

  it("a dropped connection before Khalti refunded: its lookup says Completed, so it is sent again, once", async () => {
    const refund = await owedKhaltiPayment("lost-before");
    khalti.faults.refundFails(1, { how: "drop" });
    const told: string[] = [];
    await desk("desk-m", told).owe(refund);
    await until(async () => (await refundRow(refund.paymentId)).refund === "refunded", 5_000);
    // The first never reached the payment (dropped before the effect); the lookup said so.
    expect(khalti.calls.refunds()).toBe(2);
    expect(khalti.calls.lookups(refund.chargeId)).toBeGreaterThanOrEqual(1);
    expect(await refundRow(refund.paymentId)).toMatchObject({ refund_attempts: 2, sent: false });
    expect(told).toEqual(["desk-m:owed", "desk-m:refunded"]);
  });

  it("a start takes up a refund left sent: looked up, not called again, even with its tries spent", async () => {
    const refund = await owedKhaltiPayment("lost-crash");
    // A process that died with its call out: Khalti refunded it, the ledger says sent.
    expect(await store.claimRefund(refund.paymentId, "desk-dead", 60_000)).toMatchObject({
      state: "claimed",
    });
    await ledger.db
      .updateTable("payments")
      .set({ refund_attempts: 3, refund_sent_at: new Date() })
      .where("id", "=", refund.paymentId)
      .execute();
    // Its lease lapsed with it.
    await ledger.db
      .updateTable("payments")
      .set({ refund_lease_until: new Date(Date.now() - 1_000) })
      .where("id", "=", refund.paymentId)
      .execute();
    khalti.refundOutside(refund.chargeId);
    await desk("desk-n").resume();
    await until(async () => (await refundRow(refund.paymentId)).refund === "refunded", 3_000);
    expect(khalti.calls.refunds()).toBe(0);
  });
});

describe("a stray payment found after its purchase ended", () => {
  it("is not refunded while a top-up of its purchase is under way or unknown: looked at right before, then refunded once", async () => {
    const refund = await owedKhaltiPayment("stray-1");
    // The purchase's top-up (paid by another payment) is out, its outcome unknown.
    let topup: "unknown" | "settled" = "unknown";
    const looks: string[] = [];
    const lastLook: LastLook = async (purchaseId) => {
      looks.push(`${purchaseId}:${topup}`);
      return topup === "unknown" ? "unknown" : "owed";
    };
    await desk("desk-s", [], [], undefined, [], lastLook).owe(refund);
    await until(() => looks.length >= 3, 3_000);
    expect(khalti.calls.refunds()).toBe(0);
    expect(await refundRow(refund.paymentId)).toMatchObject({ refund: "due", refund_attempts: 0 });
    topup = "settled";
    await until(async () => (await refundRow(refund.paymentId)).refund === "refunded", 3_000);
    expect(khalti.calls.refunds()).toBe(1);
    // The look that let it go was the one right before the call.
    expect(looks.at(-1)).toBe("stray-1:settled");
  });

  it("is refunded when the purchase's own top-up turns out charged at the last look: its payment kept, the stray given back", async () => {
    const refund = await owedKhaltiPayment("stray-2");
    let looks = 0;
    // The first look finds the purchase's top-up made after all (recorded charged): the stray
    // still pays for nothing.
    const lastLook: LastLook = async () => (++looks === 1 ? "charged" : "owed");
    await desk("desk-t", [], [], undefined, [], lastLook).owe(refund);
    await until(async () => (await refundRow(refund.paymentId)).refund === "refunded", 3_000);
    expect(looks).toBe(2);
    expect(khalti.calls.refunds()).toBe(1);
  });
});
