// How a Khalti lookup is read, over real HTTP: the Khalti sandbox (tools/khalti-sandbox) is the
// reference for Khalti's own answers; a server of the test's own stands for a proxy or a CDN in
// front of Khalti. Only Khalti's own JSON says anything; any other answer throws (asked again).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KhaltiPayments } from "../../src/adapters/payments/khalti.js";
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
