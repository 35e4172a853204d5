// The sandbox's foreign profile over real HTTP: the same business as the strict profile,
// spoken the way another provider might.
import { spawnSync } from "node:child_process";
import { DateTime } from "luxon";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox, type SandboxOperation } from "../../tools/sandbox/server.js";

const ZONE = "Asia/Kathmandu";
const TOKEN = "foreign-token";
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ token: TOKEN, timeZone: ZONE, profile: "foreign" });
});
beforeEach(() => {
  sandbox.reset();
  sandbox.profile = "foreign";
});
afterAll(() => sandbox.close());

interface Answer {
  status: number;
  contentType: string;
  json: Record<string, unknown> | null;
  text: string;
}

async function call(
  version: string,
  operation: SandboxOperation | "no-such-operation",
  body: unknown,
  token = TOKEN,
): Promise<Answer> {
  const response = await fetch(`${sandbox.baseUrl()}/api/third-party/${version}/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {}
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    json,
    text,
  };
}

const bodyOf = (answer: Answer) => answer.json?.body as Record<string, unknown>;

async function listing(version: string, cuid = "1000001", reqId = "8000000011") {
  const answer = await call(version, "get-subscription-package", { cuid, service: "tv", reqId });
  const body = bodyOf(answer);
  return { answer, body, block: body.tv as Record<string, unknown[]> };
}

describe.each(["v1.0.1", "v1.0.0"])("the foreign profile on %s", (version) => {
  const priceField = version === "v1.0.1" ? "price" : "amt";

  it("refuses with its own codes, statuses and messages, some empty or missing", async () => {
    const unknownCustomer = await call(version, "get-customer-information", { code: "0000000" });
    expect(unknownCustomer.status).toBe(404);
    expect(unknownCustomer.json).toMatchObject({ success: false, code: "1004", message: "" });

    const noConnection = await call(version, "get-subscription-package", {
      cuid: "1000001",
      service: "tv",
      reqId: "nope",
    });
    expect(noConnection.status).toBe(404);
    expect(noConnection.json).toMatchObject({ success: false, code: "1005" });
    expect(noConnection.json).not.toHaveProperty("message");
    expect(noConnection.json).not.toHaveProperty("body");

    const noTxn = await call(version, "txn-status", { checkoutId: "never-issued" });
    expect(noTxn.status).toBe(200);
    expect(noTxn.json).toMatchObject({ success: false, code: "TXN-0" });

    const invalid = await call(version, "get-customer-information", {});
    expect(invalid.status).toBe(400);
    expect(invalid.json).toMatchObject({ success: false, code: "E400-02" });
  });

  it("refuses a used, unknown or mismatched token on 409 with codes that do not say so", async () => {
    const { body, block } = await listing(version);
    const gold = (block.bouquets as Record<string, unknown>[]).find((b) => b.code === "TV-GOLD-M");
    const topup = (checkoutId: unknown, amt: unknown) =>
      call(version, "subscription-package-topup", {
        cuid: "1000001",
        service: "tv",
        reqId: "8000000011",
        checkoutId,
        bouquetId: "TV-GOLD-M",
        amt,
      });
    expect((await topup(body.checkoutId, gold?.[priceField])).status).toBe(200);
    for (const answer of [await topup(body.checkoutId, "700"), await topup("unknown", "700")]) {
      expect(answer.status).toBe(409);
      expect(String(answer.json?.code)).toMatch(/^ORD-409/);
      expect(JSON.stringify(answer.json)).not.toMatch(/checkout|token|expire/i);
    }
    const { body: again } = await listing(version);
    const wrongAmount = await topup(again.checkoutId, "701");
    expect(wrongAmount.status).toBe(422);
    expect(wrongAmount.json).toMatchObject({ success: false, code: "AMT-422-2" });
  });

  it("answers a bad token and an unknown route with a gateway's HTML page", async () => {
    const refused = await call(version, "get-customer-information", { code: "1000001" }, "wrong");
    expect(refused.status).toBe(401);
    expect(refused.contentType).toContain("text/html");
    expect(refused.json).toBeNull();
    const missing = await call(version, "no-such-operation", {});
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("<h1>404 Not Found</h1>");
  });

  it("sends ISO dates with the zone's offset, amounts as strings, extra fields, fewer optional ones", async () => {
    const { answer, body, block } = await listing(version);
    expect(answer.json).toHaveProperty("requestId");
    expect(body.currency).toBe("NPR");
    const [subscription] = block.subscriptions as Record<string, unknown>[];
    expect(subscription).not.toHaveProperty("startdate");
    expect(String(subscription?.enddate)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:45$/);
    const bouquets = block.bouquets as Record<string, unknown>[];
    for (const bouquet of bouquets) {
      expect(bouquet[priceField]).toMatch(/^\d+\.\d\d$/);
      expect(bouquet).toHaveProperty("channels");
    }

    sandbox.profile = "strict";
    const strict = await listing(version);
    const [strictSubscription] = strict.block.subscriptions as Record<string, unknown>[];
    const same = (iso: unknown, wall: unknown) =>
      DateTime.fromISO(String(iso)).toMillis() ===
      DateTime.fromFormat(String(wall), "yyyy-MM-dd HH:mm:ss", { zone: ZONE }).toMillis();
    expect(same(subscription?.enddate, strictSubscription?.enddate)).toBe(true);

    sandbox.profile = "foreign";
    const info = bodyOf(await call(version, "get-customer-information", { code: "1000001" }));
    const lists = (
      version === "v1.0.1"
        ? (info.customer as Record<string, unknown>).connections
        : info.connection
    ) as Record<string, unknown>;
    expect(lists).not.toHaveProperty("iptv");
    expect(info.customer).toHaveProperty("loyalty");
  });

  it("carries a whole purchase: transaction with a string amount, ISO date, no service", async () => {
    const { body, block } = await listing(version);
    const gold = (block.bouquets as Record<string, unknown>[]).find((b) => b.code === "TV-GOLD-M");
    const request = {
      cuid: "1000001",
      service: "tv",
      reqId: "8000000011",
      checkoutId: body.checkoutId,
      bouquetId: "TV-GOLD-M",
      amt: gold?.[priceField],
    };
    const topup = await call(version, "subscription-package-topup", request);
    const result = bodyOf(topup).result as Record<string, unknown>;
    expect(result).toMatchObject({ amt: "700.00", currency: "NPR" });
    expect(result).not.toHaveProperty("service");
    expect(String(result.txnDate)).toMatch(/T.*\+05:45$/);
    const status = await call(version, "txn-status", { checkoutId: body.checkoutId });
    expect((bodyOf(status).result as Record<string, unknown>).txnId).toBe(result.txnId);
    expect(sandbox.topups).toHaveLength(1);
  });
});

describe("choosing a profile", () => {
  it("switches through the control API, keeps it on reset, and refuses unknown ones", async () => {
    const post = (profile: string) =>
      fetch(`${sandbox.origin}/_sandbox/profile`, {
        method: "POST",
        body: JSON.stringify({ profile }),
      });
    expect((await post("strict")).status).toBe(200);
    expect(sandbox.profile).toBe("strict");
    sandbox.reset();
    const answer = await call("v1.0.1", "get-customer-information", { code: "0000000" });
    expect(answer.json).toMatchObject({ code: "SBX_CUSTOMER_NOT_FOUND" });
    expect((await post("exotic")).status).toBe(400);
    expect((await post("foreign")).status).toBe(200);
    const current = await fetch(`${sandbox.origin}/_sandbox/profile`).then((r) => r.json());
    expect(current).toEqual({ profile: "foreign" });
  });

  it("lets a reject fault choose any status, or an HTML page", async () => {
    sandbox.setFault("get-customer-information", { kind: "reject", code: "X", times: 1 });
    expect((await call("v1.0.1", "get-customer-information", { code: "1" })).status).toBe(409);
    sandbox.setFault("get-customer-information", {
      kind: "reject",
      code: "X",
      status: 422,
      html: true,
      times: 1,
    });
    const page = await call("v1.0.1", "get-customer-information", { code: "1" });
    expect(page.status).toBe(422);
    expect(page.contentType).toContain("text/html");
  });

  it("refuses a bad SANDBOX_PROFILE at start", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "tools/sandbox/main.ts"], {
      env: { ...process.env, SANDBOX_PROFILE: "exotic", SANDBOX_PORT: "0" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("SANDBOX_PROFILE must be one of strict, foreign");
  });
});
