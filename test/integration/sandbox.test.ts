import { DateTime } from "luxon";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseBouquetName } from "../../src/domain/bouquet-name.js";
import {
  createSandbox,
  FAILURE_CODES,
  type Sandbox,
  type SandboxOperation,
  type WireTransaction,
} from "../../tools/sandbox/server.js";

// The sandbox runs in a zone with a non-whole-hour offset so a zone bug cannot hide, on a
// controllable clock so expiry needs no real waiting. 06:15 UTC is 12:00:00 in Kathmandu.
const ZONE = "Asia/Kathmandu";
const START = new Date("2025-03-10T06:15:00Z");
const START_LOCAL = "2025-03-10 12:00:00";
const TTL_MS = 300_000;
const TOKEN = "test-token";
const FORMAT = "yyyy-MM-dd HH:mm:ss";

type Version = "v1.0.0" | "v1.0.1";
type ServiceName = "tv" | "internet" | "iptv";

interface Envelope<B> {
  success: boolean;
  code: string;
  message: string;
  body: B;
}
interface WireConnection {
  stb?: string;
  username?: string;
  status: string;
}
type ConnectionLists = Record<ServiceName, WireConnection[]>;
interface WireCustomer {
  cuid: string;
  first_name: string;
  last_name: string;
  status: string;
  connections?: ConnectionLists;
}
interface InfoBody {
  customer: WireCustomer;
  connection?: ConnectionLists;
}
interface WireBouquet {
  code: string;
  name: string;
  price?: number;
  amt?: number;
}
interface WireSubscription {
  code: string;
  name: string;
  startdate: string;
  enddate: string;
}
interface ServiceBlock {
  connection: WireConnection;
  subscriptions: WireSubscription[];
  bouquets: WireBouquet[];
}
type PackageBody = { checkoutId: string; customer: WireCustomer } & Partial<
  Record<ServiceName, ServiceBlock>
>;
interface TxnBody {
  result: WireTransaction;
}

interface Reply<B> {
  status: number;
  json: Envelope<B>;
}

let clock = START;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({
    port: 0,
    token: TOKEN,
    timeZone: ZONE,
    checkoutTtlMs: TTL_MS,
    now: () => clock,
  });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  clock = START;
  sandbox.reset();
});

function url(version: Version, operation: string, staging = false): string {
  return `${sandbox.baseUrl({ staging })}/api/third-party/${version}/${operation}`;
}

function send(
  version: Version,
  operation: SandboxOperation,
  body: unknown,
  init: { token?: string | null; staging?: boolean; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const token = init.token === undefined ? TOKEN : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(url(version, operation, init.staging), {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: init.signal,
  });
}

async function call<B = Record<string, never>>(
  version: Version,
  operation: SandboxOperation,
  body: unknown,
  init: { token?: string | null; staging?: boolean } = {},
): Promise<Reply<B>> {
  const response = await send(version, operation, body, init);
  const json = (await response.json()) as Envelope<B>;
  // Every sandbox failure code comes with the HTTP status its table documents.
  if (json.code in FAILURE_CODES) {
    expect(response.status).toBe(FAILURE_CODES[json.code as keyof typeof FAILURE_CODES].http);
  }
  return { status: response.status, json };
}

async function lookup(version: Version, code: string): Promise<Reply<InfoBody>> {
  return call<InfoBody>(version, "get-customer-information", { code });
}

async function offer(
  version: Version,
  cuid: string,
  service: ServiceName,
  reqId: string,
): Promise<{ checkoutId: string; block: ServiceBlock; body: PackageBody }> {
  const reply = await call<PackageBody>(version, "get-subscription-package", {
    cuid,
    service,
    reqId,
  });
  expect(reply.json.code).toBe("400aa010");
  const block = reply.json.body[service];
  if (!block) throw new Error(`no ${service} block`);
  return { checkoutId: reply.json.body.checkoutId, block, body: reply.json.body };
}

interface TopupFields {
  cuid: string;
  service: ServiceName;
  reqId: string;
  checkoutId: string;
  bouquetId: string;
  amt: unknown;
  udf1?: string;
  udf2?: string;
}

function topup(version: Version, fields: TopupFields): Promise<Reply<TxnBody>> {
  return call<TxnBody>(version, "subscription-package-topup", fields);
}

/** A valid top-up of Ram's TV connection (Gold monthly, 700). */
async function ramTopupFields(version: Version = "v1.0.1"): Promise<TopupFields> {
  const { checkoutId } = await offer(version, "1000001", "tv", "8000000011");
  return {
    cuid: "1000001",
    service: "tv",
    reqId: "8000000011",
    checkoutId,
    bouquetId: "TV-GOLD-M",
    amt: "700",
  };
}

function endOf(block: ServiceBlock, code: string): string | undefined {
  return block.subscriptions.find((s) => s.code === code)?.enddate;
}

async function waitUntil(condition: () => boolean, withinMs = 1000): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!condition() && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(condition()).toBe(true);
}

describe("routing and authentication", () => {
  it("refuses a missing or wrong bearer token with 401 and records the attempt", async () => {
    const missing = await call(
      "v1.0.1",
      "get-customer-information",
      { code: "1000001" },
      {
        token: null,
      },
    );
    const wrong = await call("v1.0.0", "txn-status", { checkoutId: "x" }, { token: "nope" });
    for (const reply of [missing, wrong]) {
      expect(reply.status).toBe(401);
      expect(reply.json).toMatchObject({ success: false, code: "SBX_UNAUTHORIZED", body: {} });
      expect(typeof reply.json.message).toBe("string");
    }
    expect(sandbox.requests.map((r) => r.authorized)).toEqual([false, false]);
  });

  it("answers unknown paths, versions, operations and methods with 404 JSON", async () => {
    const paths = [
      `${sandbox.origin}/nowhere`,
      url("v1.0.1", "get-everything"),
      `${sandbox.origin}/api/third-party/v2.0.0/txn-status`,
    ];
    for (const path of paths) {
      const response = await fetch(path, { method: "POST", body: "{}" });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ success: false, code: "SBX_ROUTE_NOT_FOUND" });
    }
    const get = await fetch(url("v1.0.1", "txn-status"));
    expect(get.status).toBe(404);
    expect(sandbox.requests).toHaveLength(0);
  });

  it("serves the staging prefix like the plain path and records which one was used", async () => {
    const staged = await call<InfoBody>(
      "v1.0.1",
      "get-customer-information",
      { code: "1000001" },
      { staging: true },
    );
    expect(staged.json.body.customer.cuid).toBe("1000001");
    expect(sandbox.baseUrl({ staging: true })).toBe(`${sandbox.origin}/staging`);
    expect(sandbox.requests[0]?.staging).toBe(true);
  });

  it("answers a non-JSON body and missing or mistyped fields with 400 naming the field", async () => {
    const notJson = await call("v1.0.1", "get-customer-information", "{code:");
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ success: false, code: "SBX_INVALID_JSON", body: {} });

    const array = await call("v1.0.1", "txn-status", []);
    expect(array.json.code).toBe("SBX_INVALID_JSON");

    const missing = await call("v1.0.1", "get-subscription-package", {
      cuid: "1000001",
      service: "tv",
    });
    expect(missing.status).toBe(400);
    expect(missing.json.code).toBe("SBX_INVALID_FIELD");
    expect(missing.json.message).toContain("reqId");

    const service = await call("v1.0.0", "get-subscription-package", {
      cuid: "1000001",
      service: "radio",
      reqId: "8000000011",
    });
    expect(service.json.message).toContain("service");

    const fields = await ramTopupFields();
    const amt = await topup("v1.0.1", { ...fields, amt: true });
    expect(amt.status).toBe(400);
    expect(amt.json.message).toContain("amt");
    const cuid = await call("v1.0.1", "get-customer-information", { code: 1000001 });
    expect(cuid.json.message).toContain("code");
  });
});

describe("get-customer-information", () => {
  it("v1.0.1 nests connections in the customer; found by mobile with country code", async () => {
    const reply = await lookup("v1.0.1", " +977-984-1000001 ");
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      success: true,
      code: "400aa010",
      message: expect.any(String),
      body: {
        customer: {
          cuid: "1000001",
          first_name: "Ram",
          last_name: "Thapa",
          status: "active",
          connections: { tv: [{ stb: "8000000011", status: "active" }], internet: [], iptv: [] },
        },
      },
    });
  });

  it("v1.0.0 puts `connection` beside the customer; found by STB number", async () => {
    const reply = await lookup("v1.0.0", "8000000022");
    expect(reply.json.body).toEqual({
      customer: { cuid: "1000002", first_name: "Sita", last_name: "Sharma", status: "active" },
      connection: {
        tv: [
          { stb: "8000000021", status: "active" },
          { stb: "8000000022", status: "active" },
          { stb: "8000000023", status: "inactive" },
        ],
        internet: [],
        iptv: [],
      },
    });
  });

  it("finds by cuid, by trimmed internet and iptv username, by mobile with 977", async () => {
    expect((await lookup("v1.0.1", "1000004")).json.body.customer.first_name).toBe("Gita");
    const byUser = await lookup("v1.0.0", "  hari.gurung\n");
    expect(byUser.json.body.connection?.internet).toEqual([
      { username: "hari.gurung", status: "active" },
    ]);
    const byIptv = await lookup("v1.0.1", "bikash.iptv");
    expect(byIptv.json.body.customer.connections?.iptv).toEqual([
      { username: "bikash.iptv", status: "active" },
    ]);
    expect((await lookup("v1.0.1", "9779851000002")).json.body.customer.cuid).toBe("1000002");
  });

  it("keeps special characters of names as they are", async () => {
    const { customer } = (await lookup("v1.0.1", "1000008")).json.body;
    expect([customer.first_name, customer.last_name]).toEqual(["Seán", "O'Brien <Ltd> & Sons"]);
  });

  it("answers an unknown code with a business failure", async () => {
    for (const code of ["9999999", "98410000019", "nobody"]) {
      const reply = await lookup("v1.0.1", code);
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({
        success: false,
        code: "SBX_CUSTOMER_NOT_FOUND",
        body: {},
      });
    }
  });
});

describe("get-subscription-package", () => {
  it("v1.0.1 tv: stb connection, zoned dates, bouquets with price, a fresh checkout each call", async () => {
    const first = await offer("v1.0.1", "1000001", "tv", "8000000011");
    const second = await offer("v1.0.1", "1000001", "tv", "8000000011");
    expect(first.checkoutId).toMatch(/^[0-9a-f]{32}$/);
    expect(second.checkoutId).not.toBe(first.checkoutId);
    expect(first.body.customer).toEqual({
      cuid: "1000001",
      first_name: "Ram",
      last_name: "Thapa",
      status: "active",
    });
    expect(Object.keys(first.body).sort()).toEqual(["checkoutId", "customer", "tv"]);
    expect(first.block.connection).toEqual({ stb: "8000000011", status: "active" });
    expect(first.block.subscriptions).toEqual([
      {
        code: "TV-GOLD-M",
        name: "Gold (MONTHLY)",
        startdate: "2025-02-13 00:00:00",
        enddate: "2025-03-12 23:59:59",
      },
    ]);
    expect(first.block.bouquets).toContainEqual({
      code: "TV-GOLD-HD-M",
      name: "Gold HD (MONTHLY)",
      price: 900,
    });
    expect(first.block.bouquets.every((b) => b.amt === undefined)).toBe(true);
  });

  it("v1.0.0 internet: username connection and bouquets with amt instead of price", async () => {
    const { block, body } = await offer("v1.0.0", "1000003", "internet", "hari.gurung");
    expect(body.tv).toBeUndefined();
    expect(block.connection).toEqual({ username: "hari.gurung", status: "active" });
    expect(block.bouquets).toContainEqual({
      code: "NET-25M-M",
      name: "Fiber 25 Mbps (MONTHLY)",
      amt: 565.5,
    });
    expect(block.bouquets.every((b) => b.price === undefined)).toBe(true);
  });

  it("iptv: username connection under an `iptv` block", async () => {
    const { block } = await offer("v1.0.1", "1000005", "iptv", "bikash.iptv");
    expect(block.connection).toEqual({ username: "bikash.iptv", status: "active" });
    expect(block.subscriptions[0]?.enddate).toBe("2025-03-10 23:59:59");
  });

  it("refuses an unknown cuid and a reqId that is not that customer's connection of that service", async () => {
    const cases: Array<[string, ServiceName, string, string]> = [
      ["1999999", "tv", "8000000011", "SBX_CUSTOMER_NOT_FOUND"],
      ["1000001", "tv", "8000000021", "SBX_CONNECTION_NOT_FOUND"],
      ["1000004", "internet", "8000000041", "SBX_CONNECTION_NOT_FOUND"],
      ["1000007", "tv", "8000000011", "SBX_CONNECTION_NOT_FOUND"],
    ];
    for (const [cuid, service, reqId, code] of cases) {
      const reply = await call("v1.0.1", "get-subscription-package", { cuid, service, reqId });
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ success: false, code, body: {} });
    }
  });
});

describe("subscription-package-topup", () => {
  it("executes with amt as a string, consumes the checkout and is confirmed by txn-status", async () => {
    const fields = await ramTopupFields();
    const reply = await topup("v1.0.1", { ...fields, udf1: "order-17", udf2: "ref-2" });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ success: true, code: "400ab001" });
    const { result } = reply.json.body;
    expect(result).toEqual({
      orderId: fields.checkoutId,
      txnId: expect.stringMatching(/^TXN\d{12}$/),
      cuid: "1000001",
      reqId: "8000000011",
      bouquetId: "TV-GOLD-M",
      amt: 700,
      txnDate: START_LOCAL,
      status: "success",
      service: "tv",
    });
    expect(sandbox.topups).toEqual([
      { ...result, version: "v1.0.1", udf1: "order-17", udf2: "ref-2" },
    ]);

    const again = await topup("v1.0.1", fields);
    expect(again.json).toMatchObject({ success: false, code: "SBX_CHECKOUT_USED", body: {} });
    expect(sandbox.topups).toHaveLength(1);

    const status = await call<TxnBody>("v1.0.0", "txn-status", { checkoutId: fields.checkoutId });
    expect(status.json).toMatchObject({ success: true, code: "400ab001" });
    expect(status.json.body.result).toEqual(result);
  });

  it("issues distinct txnIds and accepts amt as a number", async () => {
    const first = await topup("v1.0.1", { ...(await ramTopupFields()), amt: 700 });
    const second = await topup("v1.0.0", await ramTopupFields("v1.0.0"));
    expect(first.json.body.result.txnId).not.toBe(second.json.body.result.txnId);
    expect(sandbox.topups.map((t) => t.version)).toEqual(["v1.0.1", "v1.0.0"]);
  });

  it("refuses an unknown checkout", async () => {
    const fields = await ramTopupFields();
    const reply = await topup("v1.0.1", { ...fields, checkoutId: "0".repeat(32) });
    expect(reply.json.code).toBe("SBX_CHECKOUT_UNKNOWN");
  });

  it("expires a checkout after its validity on the sandbox clock", async () => {
    const fields = await ramTopupFields();
    const later = await ramTopupFields();
    clock = new Date(START.getTime() + TTL_MS - 1);
    expect((await topup("v1.0.1", fields)).json.success).toBe(true);
    clock = new Date(START.getTime() + TTL_MS);
    // Checked before the binding and the bouquet, as the order of checks says.
    const reply = await topup("v1.0.1", { ...later, reqId: "8000000012", bouquetId: "NOPE" });
    expect(reply.json).toMatchObject({ success: false, code: "SBX_CHECKOUT_EXPIRED" });
    expect(sandbox.topups).toHaveLength(1);
  });

  it("binds the checkout to the cuid, service and reqId it was issued for", async () => {
    const { checkoutId } = await offer("v1.0.1", "1000002", "tv", "8000000021");
    const base: TopupFields = {
      cuid: "1000002",
      service: "tv",
      reqId: "8000000021",
      checkoutId,
      bouquetId: "TV-GOLD-M",
      amt: 700,
    };
    const variants: Array<Partial<TopupFields>> = [
      { reqId: "8000000022" },
      { cuid: "1000001" },
      { cuid: "1000001", reqId: "8000000011" },
      { service: "internet" },
    ];
    for (const variant of variants) {
      const reply = await topup("v1.0.1", { ...base, ...variant });
      expect(reply.json.code).toBe("SBX_CHECKOUT_MISMATCH");
    }
    expect((await topup("v1.0.1", base)).json.success).toBe(true);
  });

  it("refuses a bouquet that is not in the connection's list", async () => {
    const fields = await ramTopupFields();
    const reply = await topup("v1.0.1", { ...fields, bouquetId: "NET-50M-M", amt: 800 });
    expect(reply.json.code).toBe("SBX_BOUQUET_NOT_OFFERED");
  });

  it("refuses a non-numeric or wrong amount without consuming the checkout", async () => {
    const fields = await ramTopupFields();
    expect((await topup("v1.0.1", { ...fields, amt: "700 NPR" })).json.code).toBe(
      "SBX_AMOUNT_INVALID",
    );
    expect((await topup("v1.0.1", { ...fields, amt: "701" })).json.code).toBe(
      "SBX_AMOUNT_MISMATCH",
    );
    expect((await topup("v1.0.1", { ...fields, amt: 70 })).json.code).toBe("SBX_AMOUNT_MISMATCH");
    expect(sandbox.topups).toHaveLength(0);
    expect((await topup("v1.0.1", { ...fields, amt: "700.00" })).json.success).toBe(true);
  });

  it("accepts a decimal price given as a string", async () => {
    const { checkoutId } = await offer("v1.0.1", "1000005", "internet", "bikash.rai");
    const reply = await topup("v1.0.1", {
      cuid: "1000005",
      service: "internet",
      reqId: "bikash.rai",
      checkoutId,
      bouquetId: "NET-25M-M",
      amt: "565.50",
    });
    expect(reply.json.body.result.amt).toBe(565.5);
  });

  it("refuses udf longer than 30 characters on v1.0.1 and ignores udf on v1.0.0", async () => {
    const long = "x".repeat(31);
    const v101 = await ramTopupFields();
    expect((await topup("v1.0.1", { ...v101, udf2: long })).json.code).toBe("SBX_UDF_TOO_LONG");
    expect((await topup("v1.0.1", { ...v101, udf1: "x".repeat(30) })).json.success).toBe(true);

    const v100 = await ramTopupFields("v1.0.0");
    const reply = await topup("v1.0.0", { ...v100, udf1: long, udf2: long });
    expect(reply.json.success).toBe(true);
    expect(sandbox.topups[1]).toMatchObject({
      version: "v1.0.0",
      udf1: undefined,
      udf2: undefined,
    });
  });

  it("extends a running subscription from its end, visible in a later package call", async () => {
    const before = await offer("v1.0.1", "1000001", "tv", "8000000011");
    const oldEnd = endOf(before.block, "TV-GOLD-M") ?? "";
    await topup("v1.0.1", { ...(await ramTopupFields()), checkoutId: before.checkoutId });
    const after = await offer("v1.0.1", "1000001", "tv", "8000000011");
    const expected = DateTime.fromFormat(oldEnd, FORMAT, { zone: ZONE }).plus({ months: 1 });
    expect(endOf(after.block, "TV-GOLD-M")).toBe(expected.toFormat(FORMAT));
    expect(endOf(after.block, "TV-GOLD-M")).toBe("2025-04-12 23:59:59");
  });

  it("renews an expired subscription from now and adds a new one for a new bouquet", async () => {
    const fields: TopupFields = {
      cuid: "1000002",
      service: "tv",
      reqId: "8000000022",
      checkoutId: (await offer("v1.0.0", "1000002", "tv", "8000000022")).checkoutId,
      bouquetId: "TV-SILVER-M",
      amt: 500,
    };
    expect((await topup("v1.0.0", fields)).json.success).toBe(true);
    const quarterly = await offer("v1.0.0", "1000002", "tv", "8000000022");
    expect(
      (
        await topup("v1.0.0", {
          ...fields,
          checkoutId: quarterly.checkoutId,
          bouquetId: "TV-ADD-KIDS-Q",
          amt: 189.95,
        })
      ).json.success,
    ).toBe(true);

    const { block } = await offer("v1.0.0", "1000002", "tv", "8000000022");
    expect(endOf(block, "TV-SILVER-M")).toBe("2025-04-10 12:00:00");
    expect(block.subscriptions.find((s) => s.code === "TV-ADD-KIDS-Q")).toEqual({
      code: "TV-ADD-KIDS-Q",
      name: "Kids [AddOn] (QUARTERLY)",
      startdate: START_LOCAL,
      enddate: "2025-06-10 12:00:00",
    });
  });
});

describe("txn-status", () => {
  it("fails for an unknown checkout and for one issued but never used", async () => {
    const { checkoutId } = await offer("v1.0.1", "1000003", "internet", "hari.gurung");
    for (const id of ["f".repeat(32), checkoutId]) {
      const reply = await call("v1.0.1", "txn-status", { checkoutId: id });
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ success: false, code: "SBX_TXN_NOT_FOUND", body: {} });
    }
  });
});

describe("faults", () => {
  it("latency delays the answer, then behaves normally", async () => {
    sandbox.setFault("get-customer-information", { kind: "latency", ms: 80, times: 1 });
    const started = performance.now();
    const reply = await lookup("v1.0.1", "1000001");
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(reply.json.body.customer.cuid).toBe("1000001");
  });

  it("hang-then-succeed performs the top-up at once although the client gave up", async () => {
    const fields = await ramTopupFields();
    sandbox.setFault("subscription-package-topup", { kind: "hang-then-succeed", ms: 300 });
    const controller = new AbortController();
    const pending = send("v1.0.1", "subscription-package-topup", fields, {
      signal: controller.signal,
    });
    // The effect is visible long before the delayed answer.
    await waitUntil(() => sandbox.topups.length === 1, 150);
    controller.abort();
    await expect(pending).rejects.toThrow();
    // Let the delayed answer go to the vanished client, then check the sandbox still serves.
    await new Promise((resolve) => setTimeout(resolve, 300));
    sandbox.clearFaults();
    const status = await call<TxnBody>("v1.0.1", "txn-status", { checkoutId: fields.checkoutId });
    expect(status.json.body.result.orderId).toBe(fields.checkoutId);
  });

  it("hang-then-succeed answers normally to a client that waits", async () => {
    sandbox.setFault("get-customer-information", { kind: "hang-then-succeed", ms: 50 });
    const reply = await lookup("v1.0.0", "1000003");
    expect(reply.json.code).toBe("400aa010");
  });

  it("http-500 and http-502 answer HTML; only afterEffect performs the operation", async () => {
    sandbox.setFault("subscription-package-topup", { kind: "http-500", times: 1 });
    const fields = await ramTopupFields();
    const plain = await send("v1.0.1", "subscription-package-topup", fields);
    expect(plain.status).toBe(500);
    expect(plain.headers.get("content-type")).toContain("text/html");
    expect(await plain.text()).toContain("500 Internal Server Error");
    expect(sandbox.topups).toHaveLength(0);

    sandbox.setFault("subscription-package-topup", {
      kind: "http-502",
      afterEffect: true,
      times: 1,
    });
    const after = await send("v1.0.1", "subscription-package-topup", fields);
    expect(after.status).toBe(502);
    expect(await after.text()).toMatch(/^<html>[\s\S]*502 Bad Gateway/);
    expect(sandbox.topups).toHaveLength(1);
  });

  it("malformed-json answers 200 with a truncated body; afterEffect performs the operation", async () => {
    sandbox.setFault("subscription-package-topup", { kind: "malformed-json", times: 1 });
    const fields = await ramTopupFields();
    const plain = await send("v1.0.1", "subscription-package-topup", fields);
    expect(plain.status).toBe(200);
    const text = await plain.text();
    expect(text.startsWith('{"success":true')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
    expect(sandbox.topups).toHaveLength(0);

    sandbox.setFault("subscription-package-topup", { kind: "malformed-json", afterEffect: true });
    const after = await send("v1.0.1", "subscription-package-topup", fields);
    const afterText = await after.text();
    expect(afterText).toContain(fields.checkoutId.slice(0, 8));
    expect(() => JSON.parse(afterText)).toThrow();
    expect(sandbox.topups).toHaveLength(1);
  });

  it("connection-reset drops the connection; afterEffect performs the operation first", async () => {
    const fields = await ramTopupFields();
    sandbox.setFault("subscription-package-topup", { kind: "connection-reset", times: 1 });
    await expect(send("v1.0.1", "subscription-package-topup", fields)).rejects.toThrow();
    expect(sandbox.topups).toHaveLength(0);

    sandbox.setFault("subscription-package-topup", {
      kind: "connection-reset",
      afterEffect: true,
      times: 1,
    });
    await expect(send("v1.0.1", "subscription-package-topup", fields)).rejects.toThrow();
    expect(sandbox.topups).toHaveLength(1);
    const status = await call<TxnBody>("v1.0.1", "txn-status", { checkoutId: fields.checkoutId });
    expect(status.json.success).toBe(true);
  });

  it("http-401 refuses a good token without performing the operation", async () => {
    sandbox.setFault("get-customer-information", { kind: "http-401" });
    const reply = await lookup("v1.0.1", "1000001");
    expect(reply.status).toBe(401);
    expect(reply.json.code).toBe("SBX_UNAUTHORIZED");
    expect(sandbox.requests[0]?.authorized).toBe(true);
  });

  it("reject answers a business failure with the given code and performs nothing", async () => {
    const fields = await ramTopupFields();
    sandbox.setFault("subscription-package-topup", {
      kind: "reject",
      code: "400ab099",
      message: "Insufficient balance",
      times: 1,
    });
    const reply = await topup("v1.0.1", fields);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      success: false,
      code: "400ab099",
      message: "Insufficient balance",
      body: {},
    });
    expect(sandbox.topups).toHaveLength(0);
    expect((await topup("v1.0.1", fields)).json.success).toBe(true);
  });

  it("transform rewrites the JSON answer of the performed operation", async () => {
    sandbox.setFault("get-customer-information", {
      kind: "transform",
      transform: (response) => ({ ...response, body: { customer: null }, extra: 1 }),
    });
    const reply = await send("v1.0.1", "get-customer-information", { code: "1000001" });
    expect(await reply.json()).toEqual({
      success: true,
      code: "400aa010",
      message: expect.any(String),
      body: { customer: null },
      extra: 1,
    });
  });

  it("counts `times`, replaces a fault on set, and clears all faults", async () => {
    sandbox.setFault("txn-status", { kind: "reject", code: "R1", times: 2 });
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push((await call("v1.0.1", "txn-status", { checkoutId: "x" })).json.code);
    }
    expect(codes).toEqual(["R1", "R1", "SBX_TXN_NOT_FOUND"]);

    sandbox.setFault("txn-status", { kind: "reject", code: "R1" });
    sandbox.setFault("txn-status", { kind: "reject", code: "R2" });
    expect((await call("v1.0.1", "txn-status", { checkoutId: "x" })).json.code).toBe("R2");
    expect((await call("v1.0.1", "txn-status", { checkoutId: "x" })).json.code).toBe("R2");
    sandbox.clearFaults();
    expect((await call("v1.0.1", "txn-status", { checkoutId: "x" })).json.code).toBe(
      "SBX_TXN_NOT_FOUND",
    );
    expect(() => sandbox.setFault("txn-status", { kind: "http-500", times: 0 })).toThrow(
      RangeError,
    );
  });

  it("applies a fault only to its operation", async () => {
    sandbox.setFault("txn-status", { kind: "http-500" });
    expect((await lookup("v1.0.1", "1000001")).status).toBe(200);
  });

  it("closes promptly with a delayed response on an open connection, abandoning it", async () => {
    const own = await createSandbox({ token: TOKEN });
    const post = (operation: SandboxOperation, body: unknown) =>
      fetch(`${own.origin}/api/third-party/v1.0.1/${operation}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(body),
      });
    const offered = (await (
      await post("get-subscription-package", {
        cuid: "1000001",
        service: "tv",
        reqId: "8000000011",
      })
    ).json()) as Envelope<PackageBody>;
    own.setFault("subscription-package-topup", { kind: "latency", ms: 100 });
    const pending = post("subscription-package-topup", {
      cuid: "1000001",
      service: "tv",
      reqId: "8000000011",
      checkoutId: offered.body.checkoutId,
      bouquetId: "TV-GOLD-M",
      amt: 700,
    });
    await waitUntil(() => own.requests.length === 2);
    const started = performance.now();
    await own.close();
    expect(performance.now() - started).toBeLessThan(200);
    await expect(pending).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(own.topups).toHaveLength(0);
  });
});

describe("record", () => {
  it("records every request in order with version, staging, body, content type and time", async () => {
    await lookup("v1.0.0", "1000001");
    clock = new Date(START.getTime() + 1000);
    await call("v1.0.1", "txn-status", "not json", { staging: true, token: "bad" });
    expect(sandbox.requests).toEqual([
      {
        operation: "get-customer-information",
        version: "v1.0.0",
        staging: false,
        body: { code: "1000001" },
        contentType: "application/json",
        authorized: true,
        at: START,
      },
      {
        operation: "txn-status",
        version: "v1.0.1",
        staging: true,
        body: "not json",
        contentType: "application/json",
        authorized: false,
        at: clock,
      },
    ]);
  });

  it("reset restores the seed and clears record, top-ups and faults", async () => {
    const fields = await ramTopupFields();
    await topup("v1.0.1", fields);
    sandbox.setFault("get-subscription-package", { kind: "http-500" });
    sandbox.reset();
    expect(sandbox.requests).toHaveLength(0);
    expect(sandbox.topups).toHaveLength(0);
    const { block } = await offer("v1.0.1", "1000001", "tv", "8000000011");
    expect(endOf(block, "TV-GOLD-M")).toBe("2025-03-12 23:59:59");
    expect((await call("v1.0.1", "txn-status", { checkoutId: fields.checkoutId })).json.code).toBe(
      "SBX_TXN_NOT_FOUND",
    );
  });
});

describe("control API", () => {
  const control = (path: string, init?: RequestInit) =>
    fetch(`${sandbox.origin}/_sandbox/${path}`, init);

  it("lists the directory, top-ups and requests", async () => {
    expect(await (await control("directory")).json()).toEqual(sandbox.directory());
    await topup("v1.0.1", await ramTopupFields());
    const topups = (await (await control("topups")).json()) as unknown[];
    expect(topups).toEqual([expect.objectContaining({ cuid: "1000001", version: "v1.0.1" })]);
    const requests = (await (await control("requests")).json()) as Array<{ operation: string }>;
    expect(requests.map((r) => r.operation)).toEqual([
      "get-subscription-package",
      "subscription-package-topup",
    ]);
  });

  it("sets, validates and clears faults and resets", async () => {
    const set = await control("faults", {
      method: "POST",
      body: JSON.stringify({ operation: "txn-status", fault: { kind: "reject", code: "C1" } }),
    });
    expect(set.status).toBe(200);
    expect((await call("v1.0.1", "txn-status", { checkoutId: "x" })).json.code).toBe("C1");

    const bad = [
      { operation: "txn-status", fault: { kind: "transform" } },
      { operation: "nope", fault: { kind: "http-500" } },
      { operation: "txn-status", fault: { kind: "latency" } },
      { operation: "txn-status", fault: { kind: "http-500", times: 0 } },
    ];
    for (const body of bad) {
      const reply = await control("faults", { method: "POST", body: JSON.stringify(body) });
      expect(reply.status).toBe(400);
    }
    expect((await control("faults", { method: "DELETE" })).status).toBe(200);
    expect((await call("v1.0.1", "txn-status", { checkoutId: "x" })).json.code).toBe(
      "SBX_TXN_NOT_FOUND",
    );
    expect((await control("reset", { method: "POST" })).status).toBe(200);
    expect(sandbox.requests).toHaveLength(0);
    expect((await control("nothing")).status).toBe(404);
  });
});

describe("seed data", () => {
  async function bouquets(service: ServiceName, cuid: string, reqId: string) {
    return (await offer("v1.0.1", cuid, service, reqId)).block.bouquets;
  }

  it("has a long TV list with all four periods, HD and add-ons, and some decimal prices", async () => {
    const tv = await bouquets("tv", "1000001", "8000000011");
    expect(tv.length).toBeGreaterThanOrEqual(60);
    const parsed = tv.map((b) => parseBouquetName(b.name));
    expect(new Set(parsed.map((p) => p.period))).toEqual(
      new Set(["monthly", "quarterly", "half-yearly", "yearly"]),
    );
    expect(parsed.filter((p) => p.addOn).length).toBeGreaterThanOrEqual(8);
    expect(tv.some((b) => b.name.includes("HD") && !parseBouquetName(b.name).addOn)).toBe(true);
    expect(tv.every((b) => typeof b.price === "number" && b.price > 0)).toBe(true);
    expect(tv.some((b) => !Number.isInteger(b.price))).toBe(true);
    expect(new Set(tv.map((b) => b.code)).size).toBe(tv.length);
  });

  it("has at least 20 internet and about 8 iptv bouquets, and codes over 64 bytes", async () => {
    const tv = await bouquets("tv", "1000001", "8000000011");
    const internet = await bouquets("internet", "1000003", "hari.gurung");
    const iptv = await bouquets("iptv", "1000005", "bikash.iptv");
    expect(internet.length).toBeGreaterThanOrEqual(20);
    expect(iptv.length).toBeGreaterThanOrEqual(6);
    const all = [...tv, ...internet, ...iptv];
    expect(all.every((b) => parseBouquetName(b.name).period !== null)).toBe(true);
    const long = all.filter((b) => Buffer.byteLength(b.code) > 64);
    expect(long.length).toBeGreaterThanOrEqual(2);
  });

  it("mixes expired, soon-ending and long-running subscriptions on offered bouquets", async () => {
    const ends: number[] = [];
    for (const entry of sandbox.directory()) {
      for (const connection of entry.connections) {
        const { block } = await offer("v1.0.1", entry.cuid, connection.service, connection.id);
        const codes = new Set(block.bouquets.map((b) => b.code));
        for (const subscription of block.subscriptions) {
          expect(codes.has(subscription.code)).toBe(true);
          const end = DateTime.fromFormat(subscription.enddate, FORMAT, { zone: ZONE });
          ends.push(end.diff(DateTime.fromJSDate(START)).as("days"));
        }
      }
    }
    expect(ends.some((days) => days < 0)).toBe(true);
    expect(ends.some((days) => days > 0 && days <= 3)).toBe(true);
    expect(ends.some((days) => days > 60)).toBe(true);
  });

  it("has the spec's test ids and the special customers", () => {
    const directory = sandbox.directory();
    const byId = new Map(directory.map((entry) => [entry.cuid, entry]));
    for (const cuid of ["1000001", "1000002", "1000003", "1000004", "1000005"]) {
      expect(byId.has(cuid)).toBe(true);
    }
    expect(directory.length).toBeGreaterThanOrEqual(10);
    expect(directory.some((e) => e.status === "inactive")).toBe(true);
    expect(directory.some((e) => e.connections.length === 0)).toBe(true);
    expect(directory.some((e) => /[<>&']/.test(e.name))).toBe(true);
    const multiTv = directory.find(
      (e) => e.connections.filter((c) => c.service === "tv").length > 1,
    );
    expect(multiTv?.connections.map((c) => c.status)).toContain("inactive");
    const services = (e: (typeof directory)[number]) =>
      new Set(e.connections.map((c) => c.service));
    expect(directory.some((e) => services(e).size === 1 && services(e).has("internet"))).toBe(true);
    expect(directory.some((e) => services(e).has("tv") && services(e).has("internet"))).toBe(true);
    expect(directory.some((e) => services(e).has("iptv"))).toBe(true);
  });

  it("has unique identifiers, and every one of them finds its own customer", async () => {
    const directory = sandbox.directory();
    const identifiers = directory.flatMap((e) => [
      e.cuid,
      e.mobile,
      ...e.connections.map((c) => c.id),
    ]);
    expect(new Set(identifiers).size).toBe(identifiers.length);
    for (const entry of directory) {
      expect(entry.mobile).toMatch(/^98\d{8}$/);
      const codes = [
        entry.cuid,
        entry.mobile,
        `+977${entry.mobile}`,
        ...entry.connections.map((c) => c.id),
      ];
      for (const code of codes) {
        expect((await lookup("v1.0.1", code)).json.body.customer.cuid).toBe(entry.cuid);
      }
    }
  });
});
