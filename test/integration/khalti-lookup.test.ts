// How a Khalti lookup is read, over real HTTP: the Khalti sandbox (tools/khalti-sandbox) is the
// reference for Khalti's own answers; a server of the test's own stands for a proxy or a CDN in
// front of Khalti. Only Khalti's own JSON says anything; any other answer throws (asked again).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KhaltiPayments } from "../../src/adapters/payments/khalti/khalti.js";
import type { PaymentLinkChannel, Refund } from "../../src/domain/payment.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import { freePort } from "../support/ports.js";

const SECRET = "lookup-test-secret";
let khalti: KhaltiSandbox;
let proxy: Server;
let proxied: { status: number; contentType: string; text: string };

const links: PaymentLinkChannel = {
  show: async () => "message",
  pending: async () => undefined,
  hide: async () => undefined,
};
const paymentsAt = (baseUrl: string) =>
  new KhaltiPayments({ baseUrl, secretKey: SECRET, timeoutMs: 1_000 }, links, {
    returnUrl: "http://127.0.0.1/return",
    websiteUrl: "http://127.0.0.1/",
  });
let direct: KhaltiPayments;
let behindProxy: KhaltiPayments;

beforeAll(async () => {
  khalti = await createKhaltiSandbox({ secretKey: SECRET });
  proxy = createServer((request, response) => {
    request.resume().on("end", () => {
      response.writeHead(proxied.status, { "content-type": proxied.contentType });
      response.end(proxied.text);
    });
  });
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  direct = paymentsAt(khalti.url);
  behindProxy = paymentsAt(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await new Promise((done) => proxy.close(done));
  await khalti.close();
});

const withOffer = (pidx: string) => ({ payment: { offer: pidx } }) as Purchase;

/** A payment link initiated at the sandbox, as the bot offers one. */
async function offered(): Promise<string> {
  const purchase = {
    id: `p-${Math.random().toString(36).slice(2)}`,
    bouquet: { name: "Gold (MONTHLY)" },
    payment: { method: "khalti", currency: "NPR", minor: 70_000, expiresAt: 0 },
  } as Purchase;
  const { handle } = await direct.offer(purchase, async () => undefined);
  return handle;
}

describe("Khalti's own answers", () => {
  it("an unknown pidx is Khalti's JSON 404: not found", async () => {
    expect(await direct.lookup(withOffer("no-such-pidx"))).toEqual({ state: "not-found" });
  });

  it("reads the status of a known payment, even on a 4xx", async () => {
    const waiting = await offered();
    expect(await direct.lookup(withOffer(waiting))).toEqual({ state: "waiting", pending: false });
    const paid = await offered();
    khalti.pay(paid);
    expect(await direct.lookup(withOffer(paid))).toMatchObject({ state: "paid", minor: 70_000 });
    const cancelled = await offered();
    khalti.cancel(cancelled);
    expect(await direct.lookup(withOffer(cancelled))).toEqual({ state: "ended", cancelled: true });
    const expired = await offered();
    khalti.expire(expired);
    expect(await direct.lookup(withOffer(expired))).toEqual({ state: "ended", cancelled: false });
    // Review of #39, finding 8: a purchase whose link is not recorded yet (mid-switch) is not
    // "ended by the system": nothing paid yet.
    expect(await direct.lookup({ payment: {} } as Purchase)).toEqual({
      state: "waiting",
      pending: false,
    });
  });

  it("Failed is final: ended, failed (read from its HTTP 400)", async () => {
    const failed = await offered();
    khalti.fail(failed);
    expect(await direct.lookup(withOffer(failed))).toEqual({
      state: "ended",
      cancelled: false,
      failed: true,
    });
  });

  it("Partially Refunded is a payment of total_amount, part given back (how much, not said)", async () => {
    const part = await offered();
    const { transactionId } = khalti.pay(part);
    khalti.refundOutside(part, { amount: 20_000 });
    expect(await direct.lookup(withOffer(part))).toMatchObject({
      state: "refunded-in-part",
      minor: 70_000,
      refundedMinor: null,
      charge: { id: part, providerId: transactionId },
    });
    khalti.refundOutside(part);
    expect(await direct.lookup(withOffer(part))).toEqual({ state: "refunded" });
  });

  it("Pending holds the payment", async () => {
    const held = await offered();
    khalti.pay(held);
    khalti.faults.lookupPending(held);
    expect(await direct.lookup(withOffer(held))).toEqual({ state: "waiting", pending: "held" });
    khalti.faults.clear();
  });
});

describe("a bank payment's refund", () => {
  it("is asked without the mobile first; Khalti's field error on mobile is needs-mobile", async () => {
    const bank = await offered();
    const { transactionId } = khalti.pay(bank, { paidBy: "bank", mobile: "9800000002" });
    const owed = { providerChargeId: transactionId } as Refund;
    const before = khalti.calls.requests.length;
    expect(await direct.refund(owed)).toBe("needs-mobile");
    expect(await direct.refund(owed, "9800000003")).toBe("needs-mobile");
    expect(khalti.payment(bank)?.refunded).toBe(false);
    expect(await direct.refund(owed, "9800000002")).toBe("refunded");
    const bodies = khalti.calls.requests.slice(before).map((request) => request.body);
    expect(bodies).toEqual([{}, { mobile: "9800000003" }, { mobile: "9800000002" }]);
  });

  it("a wallet payment is refunded without it", async () => {
    const wallet = await offered();
    const { transactionId } = khalti.pay(wallet);
    expect(await direct.refund({ providerChargeId: transactionId } as Refund)).toBe("refunded");
  });
});

describe("a refund's answer from something else than Khalti", () => {
  it("a 2xx without Khalti's own success (its detail, no error_key) is no answer: never 'refunded'", async () => {
    const owed = { providerChargeId: "T-proxy" } as Refund;
    for (const text of ["{}", '{"ok":true}', '{"detail":"x","error_key":"validation_error"}']) {
      proxied = { status: 200, contentType: "application/json", text };
      await expect(behindProxy.refund(owed), text).rejects.toThrow(/refund answered 200/);
    }
    proxied = {
      status: 200,
      contentType: "application/json",
      text: '{"detail":"Transaction refund successful."}',
    };
    expect(await behindProxy.refund(owed)).toBe("refunded");
  });
});

describe("the rest of a payment given back in part outside the bot", () => {
  it("is refunded as {amount} when the part is stated; an unstated part is never sent an empty refund", async () => {
    const pidx = await offered();
    const { transactionId } = khalti.pay(pidx);
    khalti.refundOutside(pidx, { amount: 20_000 });
    const before = khalti.calls.requests.length;
    const unknownRest = {
      providerChargeId: transactionId,
      minor: 70_000,
      refundedOutside: { at: 0, minor: null },
    } as Refund;
    expect(await direct.refund(unknownRest)).toBe("refused");
    expect(khalti.calls.requests.length).toBe(before);
    const statedRest = { ...unknownRest, refundedOutside: { at: 0, minor: 20_000 } };
    expect(await direct.refund(statedRest)).toBe("refunded");
    expect(khalti.calls.requests.slice(before).map((request) => request.body)).toEqual([
      { amount: 50_000 },
    ]);
    expect(khalti.payment(pidx)).toMatchObject({ status: "Refunded", refundedAmount: 70_000 });
  });
});

describe("the link's own expiry", () => {
  it("is recorded with its pidx, as Khalti's expires_at says; an hour when Khalti says none", async () => {
    const purchase = {
      id: "p-expiry",
      bouquet: { name: "Gold (MONTHLY)" },
      payment: { method: "khalti", currency: "NPR", minor: 70_000, expiresAt: 0 },
    } as Purchase;
    const recorded: [string, number][] = [];
    const { handle } = await direct.offer(purchase, async (pidx, until) => {
      recorded.push([pidx, until]);
    });
    expect(recorded).toEqual([[handle, khalti.payment(handle)?.expiresAt.getTime()]]);
    // A Khalti that states no expires_at (a proxy stripping it, an older API).
    proxied = {
      status: 200,
      contentType: "application/json",
      text: JSON.stringify({ pidx: "pidx-no-expiry", payment_url: "https://pay.example/x" }),
    };
    const before = Date.now();
    const none: number[] = [];
    await behindProxy.offer(purchase, async (_pidx, until) => void none.push(until));
    expect(none[0]).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(none[0]).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });
});

describe("the order id", () => {
  it("is new for every link of a purchase, and leads with the purchase's id", async () => {
    const purchase = {
      id: "p-order-1",
      bouquet: { name: "Gold (MONTHLY)" },
      payment: { method: "khalti", currency: "NPR", minor: 70_000, expiresAt: 0 },
    } as Purchase;
    const first = await direct.offer(purchase, async () => undefined);
    const second = await direct.offer(purchase, async () => undefined);
    const orderOf = (pidx: string) => khalti.payment(pidx)?.purchaseOrderId ?? "";
    expect(orderOf(first.handle)).toMatch(/^p-order-1-[0-9a-f]{8}$/);
    expect(orderOf(second.handle)).toMatch(/^p-order-1-[0-9a-f]{8}$/);
    expect(orderOf(first.handle)).not.toBe(orderOf(second.handle));
  });
});

describe("any other answer cannot be read: asked again later", () => {
  const page = (status: number) =>
    `<html><head><title>${status}</title></head><body><h1>${status}</h1>cloudfront</body></html>`;
  it.each([
    ["a proxy's HTML 404", 404, "text/html", page(404)],
    ["a 404 in plain text", 404, "text/plain", "Not Found"],
    ["a 404 with JSON that is not Khalti's", 404, "application/json", '{"message":"Not Found"}'],
    ["a 404 with JSON that is not an object", 404, "application/json", '"Not found."'],
    ["an HTML 502", 502, "text/html", page(502)],
    ["a 500 with a status in JSON", 500, "application/json", '{"status":"Expired"}'],
    ["a 503 with Khalti's error JSON", 503, "application/json", '{"detail":"Not found."}'],
    ["a 200 that is not JSON", 200, "text/html", page(200)],
    ["a 200 without a status", 200, "application/json", '{"pidx":"x"}'],
  ])("%s", async (_, status, contentType, text) => {
    proxied = { status, contentType, text };
    await expect(behindProxy.lookup(withOffer("pidx-1"))).rejects.toMatchObject({
      name: "KhaltiUnavailableError",
    });
  });

  it("no answer at all (connection refused)", async () => {
    const nowhere = paymentsAt(`http://127.0.0.1:${await freePort()}`);
    await expect(nowhere.lookup(withOffer("pidx-1"))).rejects.toMatchObject({
      name: "KhaltiUnavailableError",
    });
  });
});

describe("Khalti's record of a payment, for the daily reconciliation", () => {
  it("paid, refunded, or none made, with the amount Khalti states", async () => {
    expect(await direct.audit("no-such-pidx")).toEqual({
      paid: false,
      refunded: false,
      amountMinor: 0n,
    });
    const waiting = await offered();
    expect(await direct.audit(waiting)).toEqual({
      paid: false,
      refunded: false,
      amountMinor: 70_000n,
    });
    const short = await offered();
    khalti.pay(short, { amount: 69_950 });
    expect(await direct.audit(short)).toEqual({
      paid: true,
      refunded: false,
      amountMinor: 69_950n,
    });
    const refunded = await offered();
    const { transactionId } = khalti.pay(refunded);
    expect(await direct.refund({ providerChargeId: transactionId } as Refund)).toBe("refunded");
    expect(await direct.audit(refunded)).toEqual({
      paid: true,
      refunded: true,
      amountMinor: 70_000n,
    });
    const expired = await offered();
    khalti.expire(expired);
    expect(await direct.audit(expired)).toMatchObject({ paid: false, refunded: false });
  });

  it.each([
    ["Partially Refunded", { paid: true, refunded: true, amountMinor: 70_000n }],
    ["User canceled", { paid: false, refunded: false, amountMinor: 70_000n }],
    ["Pending", { paid: false, refunded: false, amountMinor: 70_000n }],
    ["Something new", { paid: false, refunded: false, amountMinor: 70_000n }],
  ])("%s", async (status, record) => {
    const text = JSON.stringify({ pidx: "pidx-1", status, total_amount: 70_000 });
    proxied = { status: 200, contentType: "application/json", text };
    expect(await behindProxy.audit("pidx-1")).toEqual(record);
  });

  it("throws for a payment made with no amount, and for an answer that is not Khalti's", async () => {
    proxied = {
      status: 200,
      contentType: "application/json",
      text: '{"pidx":"pidx-1","status":"Completed","total_amount":"x"}',
    };
    await expect(behindProxy.audit("pidx-1")).rejects.toMatchObject({
      name: "KhaltiUnavailableError",
    });
    proxied = { status: 502, contentType: "text/html", text: "<html>502</html>" };
    await expect(behindProxy.audit("pidx-1")).rejects.toMatchObject({
      name: "KhaltiUnavailableError",
    });
  });
});

describe("a Khalti refund, read", () => {
  const owed = { providerChargeId: "txn-1" } as Parameters<KhaltiPayments["refund"]>[0];

  it("is refunded or refused only by Khalti's own JSON", async () => {
    proxied = { status: 200, contentType: "application/json", text: '{"detail":"ok"}' };
    expect(await behindProxy.refund(owed)).toBe("refunded");
    proxied = { status: 400, contentType: "application/json", text: '{"detail":"refunded"}' };
    expect(await behindProxy.refund(owed)).toBe("refused");
    // A field error on mobile, whatever its message: the payer's mobile is needed.
    const field =
      '{"mobile":["Mobile is required for bank transactions."],"error_key":"validation_error"}';
    proxied = { status: 400, contentType: "application/json", text: field };
    expect(await behindProxy.refund(owed)).toBe("needs-mobile");
  });

  it.each([
    [404, "text/html", "<html><body>Not Found</body></html>"],
    [403, "text/html", "<html><body>Forbidden</body></html>"],
    [200, "text/html", "<html><body>OK</body></html>"],
    [502, "application/json", '{"detail":"bad gateway"}'],
  ])("throws (asked again) on %s %s from a proxy", async (status, contentType, text) => {
    proxied = { status, contentType, text };
    await expect(behindProxy.refund(owed)).rejects.toThrow(/refund answered/);
  });
});
