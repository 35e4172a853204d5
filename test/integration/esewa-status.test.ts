// How an eSewa status check is read, over real HTTP: the eSewa sandbox (tools/esewa-sandbox) is
// the reference for eSewa's own answers and faults; a server of the test's own stands for a
// proxy in front of eSewa, or an eSewa that answers oddly. Only eSewa's JSON with a published
// status says anything; everything else is unknown (asked again), never a refusal.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EsewaPayments } from "../../src/adapters/payments/esewa/esewa.js";
import { esewaForm } from "../../src/adapters/payments/esewa/esewa-signature.js";
import {
  EsewaStatusClient,
  type EsewaStatusResult,
  type EsewaUnknownReason,
} from "../../src/adapters/payments/esewa/esewa-status.js";
import type { PaymentLinkChannel } from "../../src/domain/payment.js";
import type { Purchase } from "../../src/domain/purchase.js";
import {
  createEsewaSandbox,
  type EsewaSandbox,
  TEST_PRODUCT_CODE,
  TEST_SECRET_KEY,
} from "../../tools/esewa-sandbox/server.js";
import { freePort } from "../support/ports.js";

let esewa: EsewaSandbox;
let proxy: Server;
let proxied: { status: number; contentType: string; text: string };
let proxiedQueries: URLSearchParams[] = [];
let proxiedHeaders: Record<string, string | string[] | undefined>[] = [];
const clients: EsewaStatusClient[] = [];

const clientAt = (statusUrl: string, timeoutMs = 1_000) => {
  const client = new EsewaStatusClient({ statusUrl, productCode: TEST_PRODUCT_CODE, timeoutMs });
  clients.push(client);
  return client;
};
let direct: EsewaStatusClient;
let behindProxy: EsewaStatusClient;

beforeAll(async () => {
  esewa = await createEsewaSandbox();
  proxy = createServer((request, response) => {
    proxiedQueries.push(new URL(request.url ?? "/", "http://proxy").searchParams);
    proxiedHeaders.push(request.headers);
    request.resume().on("end", () => {
      response.writeHead(proxied.status, { "content-type": proxied.contentType });
      response.end(proxied.text);
    });
  });
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  direct = clientAt(esewa.statusUrl);
  const port = (proxy.address() as AddressInfo).port;
  behindProxy = clientAt(`http://127.0.0.1:${port}/api/epay/transaction/status/`);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await new Promise((done) => proxy.close(done));
  await esewa.close();
});
beforeEach(() => {
  esewa.faults.clear();
  proxiedQueries = [];
  proxiedHeaders = [];
});

let uuids = 0;

/** A form posted to the sandbox as the buyer's browser would: the payment eSewa knows. */
async function offered(
  totalAmount = "1000",
): Promise<{ transactionUuid: string; totalAmount: string }> {
  const transactionUuid = `p-${process.pid}-${++uuids}`;
  const form = esewaForm(
    {
      productCode: TEST_PRODUCT_CODE,
      secretKey: TEST_SECRET_KEY,
      successUrl: "http://127.0.0.1/pay/esewa/success",
      failureUrl: "http://127.0.0.1/pay/esewa/failure",
    },
    totalAmount,
    transactionUuid,
  );
  const response = await fetch(esewa.formUrl, {
    method: "POST",
    body: new URLSearchParams({ ...form }),
    redirect: "manual",
  });
  expect(response.status).toBe(302);
  return { transactionUuid, totalAmount };
}

describe("eSewa's own answers", () => {
  it("asks with the product code, the amount as the form had it and the uuid", async () => {
    const payment = await offered("65.50");
    await direct.check(payment);
    const [request] = esewa.calls.requests.filter((r) => r.endpoint === "status");
    expect(request?.fields).toEqual({
      product_code: "EPAYTEST",
      total_amount: "65.50",
      transaction_uuid: payment.transactionUuid,
    });
  });

  it("asks past any cache on the way: no-cache on every status GET", async () => {
    proxied = { status: 200, contentType: "application/json", text: '{"status":"NOT_FOUND"}' };
    await behindProxy.check(await offered());
    expect(proxiedHeaders.at(-1)).toMatchObject({
      "cache-control": "no-cache",
      pragma: "no-cache",
    });
  });

  it("a form posted and nothing paid is not found; an unknown uuid too", async () => {
    expect(await direct.check(await offered())).toEqual({ state: "not-found" });
    expect(await direct.check({ transactionUuid: "nobody", totalAmount: "1000" })).toEqual({
      state: "not-found",
    });
  });

  it("COMPLETE is paid, its 1000.0 the same amount as the 1000 asked, with eSewa's reference", async () => {
    const payment = await offered("1000");
    const { refId } = esewa.pay(payment.transactionUuid);
    expect(refId).toMatch(/^[A-Z0-9]{7}$/);
    expect(await direct.check(payment)).toEqual({ state: "paid", refId });
    const cents = await offered("65.50");
    const paidCents = esewa.pay(cents.transactionUuid);
    // eSewa answers 65.5 for the 65.50 asked.
    expect(await direct.check(cents)).toEqual({ state: "paid", refId: paidCents.refId });
  });

  it("another amount is not found: never paid", async () => {
    const payment = await offered("1000");
    esewa.pay(payment.transactionUuid);
    expect(await direct.check({ ...payment, totalAmount: "100" })).toEqual({ state: "not-found" });
    expect(await direct.check({ ...payment, totalAmount: "1000.01" })).toEqual({
      state: "not-found",
    });
  });

  it("PENDING and AMBIGUOUS hold", async () => {
    const pending = await offered();
    esewa.leavePending(pending.transactionUuid);
    expect(await direct.check(pending)).toEqual({ state: "pending", status: "PENDING" });
    const halted = await offered();
    esewa.pay(halted.transactionUuid);
    esewa.faults.statusAmbiguous(halted.transactionUuid);
    expect(await direct.check(halted)).toEqual({ state: "pending", status: "AMBIGUOUS" });
    esewa.faults.clear();
    expect(await direct.check(halted)).toMatchObject({ state: "paid" });
  });

  it("CANCELED, FULL_REFUND, PARTIAL_REFUND and NOT_FOUND as eSewa's back office sets them", async () => {
    const canceled = await offered();
    esewa.cancel(canceled.transactionUuid);
    expect(await direct.check(canceled)).toEqual({ state: "canceled" });
    const refunded = await offered();
    const { refId } = esewa.pay(refunded.transactionUuid);
    esewa.setStatus(refunded.transactionUuid, "FULL_REFUND");
    expect(await direct.check(refunded)).toEqual({ state: "refunded", refId });
    esewa.setStatus(refunded.transactionUuid, "PARTIAL_REFUND");
    expect(await direct.check(refunded)).toEqual({ state: "partially-refunded", refId });
    esewa.setStatus(refunded.transactionUuid, "NOT_FOUND");
    expect(await direct.check(refunded)).toEqual({ state: "not-found" });
  });

  it("reads amounts written as strings the same way", async () => {
    const strings = await createEsewaSandbox({ amountsAs: "string" });
    try {
      const client = clientAt(strings.statusUrl);
      const transactionUuid = `strings-${process.pid}`;
      const form = esewaForm(
        {
          productCode: TEST_PRODUCT_CODE,
          secretKey: TEST_SECRET_KEY,
          successUrl: "http://127.0.0.1/s",
          failureUrl: "http://127.0.0.1/f",
        },
        "700",
        transactionUuid,
      );
      await fetch(strings.formUrl, {
        method: "POST",
        body: new URLSearchParams({ ...form }),
        redirect: "manual",
      });
      const { refId } = strings.pay(transactionUuid);
      expect(await client.check({ transactionUuid, totalAmount: "700" })).toEqual({
        state: "paid",
        refId,
      });
    } finally {
      await strings.close();
    }
  });
});

describe("eSewa's record of a payment, for the daily reconciliation", () => {
  const links: PaymentLinkChannel = {
    show: async () => "message",
    pending: async () => undefined,
    hide: async () => undefined,
  };
  const systemAt = (statusUrl: string) =>
    new EsewaPayments(
      {
        productCode: TEST_PRODUCT_CODE,
        secretKey: TEST_SECRET_KEY,
        formUrl: esewa.formUrl,
        statusUrl,
        timeoutMs: 1_000,
        pages: {
          pay: "http://127.0.0.1/pay/",
          success: "http://127.0.0.1/s",
          failure: "http://127.0.0.1/f/",
        },
      },
      links,
    );

  it("paid for the amount asked, refunded, or none made", async () => {
    const system = systemAt(esewa.statusUrl);
    const paid = await offered("65.50");
    esewa.pay(paid.transactionUuid);
    expect(await system.audit(paid.transactionUuid, 6_550)).toEqual({
      paid: true,
      refunded: false,
      amountMinor: 6_550n,
    });
    // Asked with another amount, eSewa knows no such payment.
    expect(await system.audit(paid.transactionUuid, 6_500)).toEqual({
      paid: false,
      refunded: false,
      amountMinor: 0n,
    });
    esewa.setStatus(paid.transactionUuid, "PARTIAL_REFUND");
    expect(await system.audit(paid.transactionUuid, 6_550)).toEqual({
      paid: true,
      refunded: true,
      amountMinor: 6_550n,
    });
    esewa.setStatus(paid.transactionUuid, "FULL_REFUND");
    expect(await system.audit(paid.transactionUuid, 6_550)).toMatchObject({ refunded: true });
    const none = { paid: false, refunded: false, amountMinor: 0n };
    expect(await system.audit((await offered()).transactionUuid, 100_000)).toEqual(none);
    const canceled = await offered();
    esewa.cancel(canceled.transactionUuid);
    expect(await system.audit(canceled.transactionUuid, 100_000)).toEqual(none);
    const pending = await offered();
    esewa.leavePending(pending.transactionUuid);
    expect(await system.audit(pending.transactionUuid, 100_000)).toEqual(none);
  });

  it("COMPLETE for another amount is paid for the amount eSewa states (amounts differ)", async () => {
    const system = systemAt(esewa.statusUrl);
    const other = await offered("7");
    esewa.pay(other.transactionUuid);
    esewa.faults.statusAnyAmount(other.transactionUuid);
    expect(await system.audit(other.transactionUuid, 70_000)).toEqual({
      paid: true,
      refunded: false,
      amountMinor: 700n,
    });
  });

  it("throws when eSewa's answer says nothing", async () => {
    const payment = await offered();
    esewa.pay(payment.transactionUuid);
    esewa.faults.statusFails(1, "http-503");
    await expect(
      systemAt(esewa.statusUrl).audit(payment.transactionUuid, 100_000),
    ).rejects.toMatchObject({
      name: "EsewaUnavailableError",
    });
  });
});

describe("eSewa's states, read as the domain's (EsewaPayments.lookup)", () => {
  const links: PaymentLinkChannel = {
    show: async () => "message",
    pending: async () => undefined,
    hide: async () => undefined,
  };
  const system = () =>
    new EsewaPayments(
      {
        productCode: TEST_PRODUCT_CODE,
        secretKey: TEST_SECRET_KEY,
        formUrl: esewa.formUrl,
        statusUrl: esewa.statusUrl,
        timeoutMs: 1_000,
        pages: {
          pay: "http://127.0.0.1/pay/",
          success: "http://127.0.0.1/s",
          failure: "http://127.0.0.1/f/",
        },
      },
      links,
    );
  const purchaseFor = (transactionUuid: string, minor: number) =>
    ({
      id: "p-1",
      payment: { method: "esewa", currency: "NPR", minor, expiresAt: 0, offer: transactionUuid },
    }) as Purchase;

  it("PENDING is started and not finished; AMBIGUOUS is held", async () => {
    const pending = await offered("1000");
    esewa.leavePending(pending.transactionUuid);
    expect(await system().lookup(purchaseFor(pending.transactionUuid, 100_000))).toEqual({
      state: "waiting",
      pending: "unfinished",
    });
    esewa.faults.statusAmbiguous(pending.transactionUuid);
    expect(await system().lookup(purchaseFor(pending.transactionUuid, 100_000))).toEqual({
      state: "waiting",
      pending: "held",
    });
  });

  it("PARTIAL_REFUND is a payment of the amount asked, part given back (how much, not said)", async () => {
    const part = await offered("1000");
    const { refId } = esewa.pay(part.transactionUuid);
    esewa.setStatus(part.transactionUuid, "PARTIAL_REFUND");
    expect(await system().lookup(purchaseFor(part.transactionUuid, 100_000))).toMatchObject({
      state: "refunded-in-part",
      minor: 100_000,
      refundedMinor: null,
      charge: { id: part.transactionUuid, providerId: refId },
    });
    esewa.setStatus(part.transactionUuid, "FULL_REFUND");
    expect(await system().lookup(purchaseFor(part.transactionUuid, 100_000))).toEqual({
      state: "refunded",
    });
  });

  it("COMPLETE for another amount is doubtful: the amount eSewa states, and why", async () => {
    const other = await offered("7");
    const { refId } = esewa.pay(other.transactionUuid);
    esewa.faults.statusAnyAmount(other.transactionUuid);
    const found = await system().lookup(purchaseFor(other.transactionUuid, 70_000));
    expect(found).toMatchObject({
      state: "doubtful",
      minor: 700,
      charge: { id: other.transactionUuid, providerId: refId },
    });
    expect(found.state === "doubtful" && found.reason).toBe(
      "eSewa's status check answered COMPLETE for 7.0 when asked about 700.00",
    );
  });
});

describe("eSewa failing: unknown, asked again", () => {
  const unknown = (reason: EsewaUnknownReason): EsewaStatusResult => ({ state: "unknown", reason });

  it.each([
    ["an HTML 500", "http-500", "server-error"],
    ["a 503 saying the service is unavailable", "http-503", "server-error"],
    ["a 200 saying the service is unavailable", "unavailable", "unreadable"],
    ["the status 'Service is currently unavailable'", "unavailable-status", "unexpected-status"],
    ["the connection dropped", "drop", "unreachable"],
  ] as const)("%s", async (_, how, reason) => {
    const payment = await offered();
    esewa.pay(payment.transactionUuid);
    esewa.faults.statusFails(1, how);
    expect(await direct.check(payment)).toEqual(unknown(reason));
    expect(await direct.check(payment)).toMatchObject({ state: "paid" });
  });

  it("an answer later than the timeout", async () => {
    const impatient = clientAt(esewa.statusUrl, 300);
    const payment = await offered();
    esewa.pay(payment.transactionUuid);
    esewa.faults.statusSlow(1_500, 1);
    const started = performance.now();
    expect(await impatient.check(payment)).toEqual(unknown("timeout"));
    expect(performance.now() - started).toBeLessThan(1_400);
    expect(await impatient.check(payment)).toMatchObject({ state: "paid" });
  });

  it("an answer held past the timeout, then released", async () => {
    const impatient = clientAt(esewa.statusUrl, 300);
    const payment = await offered();
    esewa.pay(payment.transactionUuid);
    esewa.faults.holdStatus();
    expect(await impatient.check(payment)).toEqual(unknown("timeout"));
    esewa.faults.releaseStatus();
    expect(await impatient.check(payment)).toMatchObject({ state: "paid" });
  });

  it("no answer at all (connection refused)", async () => {
    const nowhere = clientAt(`http://127.0.0.1:${await freePort()}/api/epay/transaction/status/`);
    expect(await nowhere.check({ transactionUuid: "x", totalAmount: "1" })).toEqual(
      unknown("unreachable"),
    );
  });
});

describe("any other answer", () => {
  const page = (status: number) =>
    `<html><head><title>${status}</title></head><body><h1>${status}</h1>nginx</body></html>`;
  const ask = { transactionUuid: "p-1", totalAmount: "1000" };
  const body = (fields: Record<string, unknown>) =>
    JSON.stringify({
      product_code: "EPAYTEST",
      transaction_uuid: "p-1",
      total_amount: 1000,
      status: "COMPLETE",
      ref_id: "0001TS9",
      ...fields,
    });

  it("keeps the status URL's path, and asks with the three parameters", async () => {
    proxied = { status: 200, contentType: "application/json", text: body({}) };
    expect(await behindProxy.check(ask)).toEqual({ state: "paid", refId: "0001TS9" });
    expect(Object.fromEntries(proxiedQueries[0] ?? [])).toEqual({
      product_code: "EPAYTEST",
      total_amount: "1000",
      transaction_uuid: "p-1",
    });
  });

  it.each([
    ["1000.00 in a string", '"1000.00"'],
    ["1000.0 as a number", "1000.0"],
    ["1000 as a number", "1000"],
  ])("COMPLETE with %s is paid for 1000", async (_, amount) => {
    const text = body({}).replace('"total_amount":1000', `"total_amount":${amount}`);
    proxied = { status: 200, contentType: "application/json", text };
    expect(await behindProxy.check(ask)).toMatchObject({ state: "paid" });
  });

  it("a status read from a 4xx with eSewa's JSON", async () => {
    proxied = { status: 400, contentType: "application/json", text: body({ status: "NOT_FOUND" }) };
    expect(await behindProxy.check(ask)).toEqual({ state: "not-found" });
  });

  it.each([
    ["another amount", "100", "100"],
    ["1000.01", "1000.01", "1000.01"],
    ["7.0 in a string", '"7.0"', "7.0"],
  ])(
    "COMPLETE for %s is told apart, with the amount as eSewa stated it",
    async (_, json, stated) => {
      const text = body({}).replace('"total_amount":1000', `"total_amount":${json}`);
      proxied = { status: 200, contentType: "application/json", text };
      expect(await behindProxy.check(ask)).toEqual({
        state: "paid-other-amount",
        refId: "0001TS9",
        totalAmount: stated,
      });
    },
  );

  it("a missing ref_id is no reference", async () => {
    proxied = { status: 200, contentType: "application/json", text: body({ ref_id: null }) };
    expect(await behindProxy.check(ask)).toEqual({ state: "paid", refId: null });
  });

  it.each([
    ["COMPLETE with no amount", 200, body({ total_amount: undefined }), "other-amount"],
    ["COMPLETE with an amount in words", 200, body({ total_amount: "thousand" }), "other-amount"],
    ["COMPLETE for another uuid", 200, body({ transaction_uuid: "p-2" }), "other-payment"],
    ["COMPLETE with no uuid", 200, body({ transaction_uuid: undefined }), "other-payment"],
    ["COMPLETE for another merchant", 200, body({ product_code: "NP-ES-X" }), "other-payment"],
    ["a status eSewa does not publish", 200, body({ status: "SUCCESS" }), "unexpected-status"],
    ["a status in lower case", 200, body({ status: "complete" }), "unexpected-status"],
    ["a status that is not text", 200, body({ status: { code: 1 } }), "unreadable"],
    ["no status", 200, '{"code":0,"error_message":"x"}', "unreadable"],
    ["a 200 that is not JSON", 200, page(200), "unreadable"],
    ["a JSON array", 200, "[]", "unreadable"],
    ["a proxy's HTML 404", 404, page(404), "unreadable"],
    ["an HTML 502", 502, page(502), "server-error"],
    ["a 500 with a status in JSON", 500, body({}), "server-error"],
    ["a redirect", 302, "", "server-error"],
  ] satisfies [string, number, string, EsewaUnknownReason][])(
    "%s is unknown",
    async (_, status, text, reason) => {
      proxied = { status, contentType: "application/json", text };
      expect(await behindProxy.check(ask)).toEqual(unknown(reason));
    },
  );

  function unknown(reason: EsewaUnknownReason): EsewaStatusResult {
    return { state: "unknown", reason };
  }

  it("says nothing of the query in what it returns", async () => {
    proxied = { status: 502, contentType: "text/html", text: page(502) };
    const result = await behindProxy.check({ transactionUuid: "secret-uuid", totalAmount: "1" });
    expect(JSON.stringify(result)).not.toContain("secret-uuid");
    expect(Object.keys(result).sort()).toEqual(["reason", "state"]);
  });
});
