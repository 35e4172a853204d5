import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProviderClient, type ProviderClientOptions } from "../../src/adapters/provider/client.js";
import type { ProviderApiVersion } from "../../src/adapters/provider/versions.js";
import {
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
  TopupOutcomeUnknownError,
} from "../../src/domain/provider-errors.js";
import { createSandbox, type Sandbox } from "../../tools/sandbox/server.js";
import type { DirectoryEntry } from "../../tools/sandbox/types.js";
import { captureLogs } from "../support/log-capture.js";

const TOKEN = "client-test-token";
let sandbox: Sandbox;
const clients: ProviderClient[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ token: TOKEN });
});
afterEach(() => sandbox.reset());
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await sandbox.close();
});

function clientFor(
  version: ProviderApiVersion,
  overrides: Partial<ProviderClientOptions> = {},
): ProviderClient {
  const client = new ProviderClient({
    baseUrl: sandbox.baseUrl(),
    version,
    token: TOKEN,
    timeoutMs: 1_000,
    readRetries: 2,
    retryBaseMs: 5,
    timeZone: "UTC",
    logger: captureLogs().logger,
    ...overrides,
  });
  clients.push(client);
  return client;
}

function customerWith(predicate: (entry: DirectoryEntry) => boolean): DirectoryEntry {
  const entry = sandbox.directory().find(predicate);
  if (!entry) throw new Error("the sandbox has no such customer");
  return entry;
}
const hasService = (service: string) => (entry: DirectoryEntry) =>
  entry.connections.some((connection) => connection.service === service);
const requestsTo = (operation: string) =>
  sandbox.requests.filter((request) => request.operation === operation);

/** Looks the customer up, lists packages for its first `service` connection, picks a bouquet. */
async function prepareTopup(client: ProviderClient, service: "tv" | "internet") {
  const entry = customerWith(hasService(service));
  const info = await client.getCustomer(entry.cuid);
  const connection = info.connections.find((c) => c.service === service);
  if (!connection) throw new Error("no connection");
  const offer = await client.getPackages(info.customer.cuid, connection);
  const bouquet = offer.bouquets[0];
  if (!bouquet) throw new Error("no bouquets");
  return {
    offer,
    request: {
      cuid: info.customer.cuid,
      service,
      connectionId: connection.id,
      checkoutId: offer.checkout.id,
      bouquetCode: bouquet.code,
      amount: bouquet.price,
    },
  };
}

describe.each(["v1.0.0", "v1.0.1"] as const)("provider client on %s", (version) => {
  it("looks a customer up by mobile number, customer id, STB and username", async () => {
    const client = clientFor(version);
    const entry = customerWith((e) => hasService("tv")(e) && hasService("internet")(e));
    const byId = await client.getCustomer(entry.cuid);
    expect(byId.customer.cuid).toBe(entry.cuid);
    expect(byId.connections).toEqual(entry.connections);
    for (const code of [entry.mobile, ...entry.connections.map((c) => c.id)]) {
      expect((await client.getCustomer(code)).customer.cuid).toBe(entry.cuid);
    }
  });

  it("lists packages for tv and internet with parsed periods, add-ons and dates", async () => {
    const client = clientFor(version);
    const tvCustomer = customerWith(hasService("tv"));
    const stb = tvCustomer.connections.find((c) => c.service === "tv");
    if (!stb) throw new Error("no stb");
    const before = Date.now();
    const offer = await client.getPackages(tvCustomer.cuid, stb);
    expect(offer.checkout.id).not.toBe("");
    expect(offer.checkout.issuedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(offer.connection).toEqual(stb);
    expect(offer.customer.cuid).toBe(tvCustomer.cuid);
    expect(offer.bouquets.length).toBeGreaterThanOrEqual(60);
    expect(new Set(offer.bouquets.map((b) => b.period))).toEqual(
      new Set(["monthly", "quarterly", "half-yearly", "yearly"]),
    );
    const addOn = offer.bouquets.find((b) => b.addOn);
    expect(addOn?.displayName).not.toMatch(/AddOn|\(/);
    for (const bouquet of offer.bouquets) expect(bouquet.price).toMatch(/^\d+(\.\d+)?$/);
    for (const subscription of offer.subscriptions) {
      expect(subscription.end?.at).toEqual(expect.any(Number));
    }

    const internetCustomer = customerWith(hasService("internet"));
    const line = internetCustomer.connections.find((c) => c.service === "internet");
    if (!line) throw new Error("no internet connection");
    const internet = await client.getPackages(internetCustomer.cuid, line);
    expect(internet.connection).toEqual(line);
    expect(internet.bouquets.length).toBeGreaterThanOrEqual(20);
  });

  it("tops up and verifies with txn-status, sending the amount as a string", async () => {
    const client = clientFor(version);
    const { request } = await prepareTopup(client, "tv");
    const transaction = await client.topup({ ...request, reference: "tg:42:1" });
    expect(transaction).toMatchObject({
      orderId: request.checkoutId,
      cuid: request.cuid,
      connectionId: request.connectionId,
      bouquetCode: request.bouquetCode,
      amount: request.amount,
      status: "success",
      service: "tv",
    });
    expect(transaction.date?.at).toEqual(expect.any(Number));
    expect(await client.txnStatus(request.checkoutId)).toEqual(transaction);

    const [sent] = requestsTo("subscription-package-topup");
    if (!sent) throw new Error("no top-up request recorded");
    expect(sent.contentType).toMatch(/^application\/json/);
    expect(sent.authorized).toBe(true);
    const body = sent.body as { amt: unknown; udf1?: string };
    expect(body.amt).toBe(request.amount);
    // udf1 exists on v1.0.1 only.
    expect(body.udf1).toBe(version === "v1.0.1" ? "tg:42:1" : undefined);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("works under the test environment's staging path", async () => {
    const client = clientFor(version, { baseUrl: sandbox.baseUrl({ staging: true }) });
    const entry = customerWith(hasService("tv"));
    await client.getCustomer(entry.cuid);
    expect(sandbox.requests.at(-1)?.staging).toBe(true);
  });
});

describe("both versions", () => {
  it("normalise the same data into equal results", async () => {
    const old = clientFor("v1.0.0");
    const current = clientFor("v1.0.1");
    for (const entry of sandbox.directory()) {
      const [a, b] = [await old.getCustomer(entry.cuid), await current.getCustomer(entry.cuid)];
      expect(a).toEqual(b);
      for (const connection of a.connections) {
        const [offerA, offerB] = [
          await old.getPackages(entry.cuid, connection),
          await current.getPackages(entry.cuid, connection),
        ];
        const { checkout: _a, ...restA } = offerA;
        const { checkout: _b, ...restB } = offerB;
        expect(restA).toEqual(restB);
      }
    }
  });
});

describe("provider client errors", () => {
  const entry = () => customerWith(hasService("tv"));

  it("reports a refusal with the provider's code", async () => {
    const error = await clientFor("v1.0.1")
      .getCustomer("0000000000")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect((error as ProviderRejectedError).code).toMatch(/\S/);
  });

  it("reports a refused token as unauthorised, logs it loudly but at most once a minute", async () => {
    const { logger, lines } = captureLogs("info");
    const client = clientFor("v1.0.1", { token: "wrong-token", logger });
    for (let i = 0; i < 3; i++) {
      await expect(client.getCustomer(entry().cuid)).rejects.toBeInstanceOf(
        ProviderUnauthorizedError,
      );
    }
    const errors = lines().filter((line) => JSON.parse(line).level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("PROVIDER_TOKEN");
    expect(lines().join("\n")).not.toContain("wrong-token");
    // Unauthorised is not retried.
    expect(requestsTo("get-customer-information")).toHaveLength(3);
  });

  it.each([["http-500"], ["http-502"], ["malformed-json"], ["connection-reset"]] as const)(
    "retries reads after %s and then succeeds",
    async (kind) => {
      sandbox.setFault("get-customer-information", { kind, times: 2 });
      const info = await clientFor("v1.0.1").getCustomer(entry().cuid);
      expect(info.customer.cuid).toBe(entry().cuid);
      expect(requestsTo("get-customer-information")).toHaveLength(3);
    },
  );

  it("gives up reading after the bounded number of retries", async () => {
    sandbox.setFault("get-subscription-package", { kind: "http-502" });
    const client = clientFor("v1.0.1", { readRetries: 3 });
    const stb = entry().connections.find((c) => c.service === "tv");
    if (!stb) throw new Error("no stb");
    await expect(client.getPackages(entry().cuid, stb)).rejects.toBeInstanceOf(
      ProviderUnavailableError,
    );
    expect(requestsTo("get-subscription-package")).toHaveLength(4);
  });

  it("times a slow read out", async () => {
    sandbox.setFault("txn-status", { kind: "latency", ms: 4_000 });
    const client = clientFor("v1.0.1", { timeoutMs: 150, readRetries: 1 });
    const started = Date.now();
    const error = await client.txnStatus("abc").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toContain("no answer within 150 ms");
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(requestsTo("txn-status")).toHaveLength(2);
  });

  it("counts the call itself, not the wait for a free connection of the pool", async () => {
    sandbox.setFault("get-customer-information", { kind: "latency", ms: 600 });
    // One connection, four calls: the last waits 1.8 s in line, each call takes 0.6 s.
    const client = clientFor("v1.0.1", { maxConnections: 1, timeoutMs: 1_500, readRetries: 0 });
    const calls = Array.from({ length: 4 }, () => client.getCustomer(entry().cuid));
    const results = await Promise.allSettled(calls);
    expect(results.map((result) => result.status)).toEqual(Array(4).fill("fulfilled"));
  });

  it("stops at once when the caller cancels, without retrying", async () => {
    sandbox.setFault("get-customer-information", { kind: "latency", ms: 1_000 });
    const controller = new AbortController();
    const pending = clientFor("v1.0.1").getCustomer(entry().cuid, controller.signal);
    setTimeout(() => controller.abort(new Error("user left")), 50);
    await expect(pending).rejects.toThrow("user left");
    expect(requestsTo("get-customer-information")).toHaveLength(1);
  });

  it("says unavailable when nothing listens", async () => {
    const port = await freePort();
    const client = clientFor("v1.0.1", { baseUrl: `http://127.0.0.1:${port}`, readRetries: 0 });
    await expect(client.getCustomer("1")).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it("tolerates unknown extra fields", async () => {
    sandbox.setFault("get-customer-information", {
      kind: "transform",
      transform: (response) => {
        const body = response.body as { customer: Record<string, unknown> };
        body.customer.loyalty_tier = "gold";
        return { ...response, trace: "x", body: { ...body, extra: [1, 2] } };
      },
    });
    const info = await clientFor("v1.0.1").getCustomer(entry().cuid);
    expect(info.customer).not.toHaveProperty("loyalty_tier");
    expect(info.customer.cuid).toBe(entry().cuid);
  });

  it("names the path of a missing or wrongly typed field, without the data", async () => {
    sandbox.setFault("get-customer-information", {
      kind: "transform",
      transform: (response) => {
        const body = response.body as { customer: { cuid?: unknown } };
        body.customer.cuid = { secret: "12345" };
        return response;
      },
    });
    const error = await clientFor("v1.0.1")
      .getCustomer(entry().cuid)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderProtocolError);
    expect((error as ProviderProtocolError).path).toBe("body.customer.cuid");
    expect((error as Error).message).not.toContain("12345");
    // A protocol error is not retried.
    expect(requestsTo("get-customer-information")).toHaveLength(1);

    sandbox.setFault("txn-status", {
      kind: "transform",
      transform: () => ({ success: true, code: "400ab001", body: { result: { orderId: "1" } } }),
    });
    const missing = await clientFor("v1.0.1")
      .txnStatus("1")
      .catch((e: unknown) => e);
    expect((missing as ProviderProtocolError).path).toBe("body.result.txnId");
  });
});

describe("top-up is never retried", () => {
  it.each([
    ["http-500", { kind: "http-500", afterEffect: true }],
    ["http-502", { kind: "http-502", afterEffect: true }],
    ["malformed-json", { kind: "malformed-json", afterEffect: true }],
    ["connection-reset", { kind: "connection-reset", afterEffect: true }],
  ] as const)(
    "%s after the effect: outcome unknown, then found by txn-status",
    async (_, fault) => {
      const client = clientFor("v1.0.1");
      const { request } = await prepareTopup(client, "internet");
      sandbox.setFault("subscription-package-topup", fault);
      const error = await client.topup(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TopupOutcomeUnknownError);
      expect((error as TopupOutcomeUnknownError).checkoutId).toBe(request.checkoutId);
      expect(requestsTo("subscription-package-topup")).toHaveLength(1);
      expect(sandbox.topups).toHaveLength(1);
      expect((await client.txnStatus(request.checkoutId)).orderId).toBe(request.checkoutId);
    },
  );

  it("a timed-out top-up that happened later is outcome unknown and found by txn-status", async () => {
    const client = clientFor("v1.0.0", { timeoutMs: 200 });
    const { request } = await prepareTopup(client, "tv");
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 2_000 });
    await expect(client.topup(request)).rejects.toBeInstanceOf(TopupOutcomeUnknownError);
    expect(requestsTo("subscription-package-topup")).toHaveLength(1);
    expect(sandbox.topups).toHaveLength(1);
    const transaction = await client.txnStatus(request.checkoutId);
    expect(transaction.bouquetCode).toBe(request.bouquetCode);
  });

  it("a success with an unreadable result is outcome unknown", async () => {
    const client = clientFor("v1.0.1");
    const { request } = await prepareTopup(client, "tv");
    sandbox.setFault("subscription-package-topup", {
      kind: "transform",
      transform: (response) => ({ ...response, body: {} }),
    });
    await expect(client.topup(request)).rejects.toBeInstanceOf(TopupOutcomeUnknownError);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("a refusal is reported as such and nothing was executed", async () => {
    const client = clientFor("v1.0.1");
    const { request } = await prepareTopup(client, "tv");
    const error = await client.topup({ ...request, amount: `${request.amount}1` }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(sandbox.topups).toHaveLength(0);
  });

  it("an unreachable provider is plainly unavailable: the request never left", async () => {
    const port = await freePort();
    const client = clientFor("v1.0.1", { baseUrl: `http://127.0.0.1:${port}` });
    const error = await client
      .topup({
        cuid: "1",
        service: "tv",
        connectionId: "1",
        checkoutId: "c",
        bouquetCode: "b",
        amount: "1",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).not.toBeInstanceOf(TopupOutcomeUnknownError);
  });

  it("refuses references longer than 30 characters before sending anything", async () => {
    const client = clientFor("v1.0.1");
    const { request } = await prepareTopup(client, "tv");
    await expect(client.topup({ ...request, reference: "x".repeat(31) })).rejects.toBeInstanceOf(
      RangeError,
    );
    expect(requestsTo("subscription-package-topup")).toHaveLength(0);
  });

  it("logs neither tokens nor personal data", async () => {
    const { logger, lines } = captureLogs("trace");
    const client = clientFor("v1.0.1", { logger });
    const { request, offer } = await prepareTopup(client, "tv");
    await client.topup(request);
    const output = lines().join("\n");
    expect(lines().length).toBeGreaterThan(0);
    for (const secret of [TOKEN, offer.customer.firstName, offer.customer.lastName, request.cuid]) {
      expect(output).not.toContain(secret);
    }
    expect(output).not.toContain(request.connectionId);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

describe("a provider that speaks differently", () => {
  const tvEntry = () => customerWith(hasService("tv"));
  type Listing = {
    tv: {
      subscriptions: Record<string, unknown>[];
      bouquets: Record<string, unknown>[];
    };
  };
  const rewriteListing = (change: (body: Listing) => void) =>
    sandbox.setFault("get-subscription-package", {
      kind: "transform",
      transform: (response) => {
        change(response.body as Listing);
        return response;
      },
    });
  const listTv = async (client = clientFor("v1.0.1")) => {
    const entry = tvEntry();
    const stb = entry.connections.find((c) => c.service === "tv");
    if (!stb) throw new Error("no stb");
    return client.getPackages(entry.cuid, stb);
  };

  it("reads ISO dates with offsets, bare dates, and keeps unreadable ones as text", async () => {
    rewriteListing((body) => {
      const [first, second, third] = body.tv.subscriptions;
      body.tv.subscriptions = [
        { ...first, enddate: "2026-11-24T23:59:59+05:45" },
        { ...(second ?? first), enddate: "2026-12-01" },
        { ...(third ?? first), enddate: "31/12/2026 noon", startdate: undefined },
        { code: "X", name: "No end date (MONTHLY)" },
      ];
    });
    const offer = await listTv();
    expect(offer.subscriptions.map((s) => s.end)).toEqual([
      { at: Date.parse("2026-11-24T18:14:59Z"), text: "2026-11-24T23:59:59+05:45" },
      { at: Date.parse("2026-12-01T00:00:00Z"), text: "2026-12-01", dateOnly: true },
      { at: null, text: "31/12/2026 noon" },
      null,
    ]);
  });

  it("takes string amounts exactly, and leaves out bouquets that cannot be sold, logged once", async () => {
    const { logger, lines } = captureLogs("warn");
    rewriteListing((body) => {
      const [a, b, c, d, e, f] = body.tv.bouquets;
      if (!(a && b && c && d && e && f)) throw new Error("too few bouquets");
      a.price = "12.345";
      b.price = 0;
      c.price = -5;
      d.price = "free";
      delete e.price;
      f.code = { nested: true };
    });
    const offer = await listTv(clientFor("v1.0.1", { logger }));
    expect(offer.bouquets.length).toBeGreaterThan(50);
    expect(offer.bouquets[0]?.price).toBe("12.345");
    expect(offer.bouquets.map((bouquet) => bouquet.price)).not.toContain("0");
    const warnings = lines().filter((line) => line.includes("not offered"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? "{}")).toMatchObject({ count: 5 });
  });

  it("reads a transaction with an ISO date, a string amount and no optional fields", async () => {
    const client = clientFor("v1.0.1");
    const { request } = await prepareTopup(client, "tv");
    await client.topup(request);
    sandbox.setFault("txn-status", {
      kind: "transform",
      transform: (response) => {
        const result = (response.body as { result: Record<string, unknown> }).result;
        return {
          success: true,
          code: "OK",
          body: {
            result: {
              txnId: result.txnId,
              amt: "700.00",
              txnDate: "2026-11-22T08:19:00.000+05:45",
              currency: "NPR",
            },
          },
        };
      },
    });
    const transaction = await client.txnStatus(request.checkoutId);
    expect(transaction).toMatchObject({
      amount: "700.00",
      date: { at: Date.parse("2026-11-22T02:34:00Z") },
      status: null,
      service: null,
      orderId: null,
    });
  });

  it("takes numbers where the spec shows strings, and skips connections without an id", async () => {
    sandbox.setFault("get-customer-information", {
      kind: "transform",
      transform: (response) => {
        const body = response.body as {
          customer: { cuid: unknown; connections: { tv: Record<string, unknown>[] } };
        };
        body.customer.cuid = Number(body.customer.cuid);
        body.customer.connections.tv.push({ status: "active" }, { stb: 8000000999 });
        return response;
      },
    });
    const entry = tvEntry();
    const info = await clientFor("v1.0.1").getCustomer(entry.cuid);
    expect(info.customer.cuid).toBe(entry.cuid);
    expect(info.connections.map((c) => c.id)).toContain("8000000999");
    expect(info.connections.filter((c) => c.service === "tv")).toHaveLength(
      entry.connections.filter((c) => c.service === "tv").length + 1,
    );
  });
});
