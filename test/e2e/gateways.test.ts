// Gateways in front of the provider and of Khalti (proxies of the test's own, loopback only):
// their own 4xx answers and HTML pages say nothing of what the service did. A top-up the
// gateway forwarded and then answered 429, 409 or an HTML 404 was executed: it is found with
// txn-status, never sent again. A Khalti lookup answered with a CDN's HTML 404 is asked again,
// and only Khalti's own "not found", after the payment window, ends the purchase unpaid.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type GatewayAnswer, gatewayPage } from "../support/gateway-proxy.js";
import { type KhaltiGateways, startKhaltiGateways } from "../support/khalti-gateways.js";
import { until } from "../support/wait.js";

const WINDOW_MS = 3_000;
let world: KhaltiGateways;
let nextUser = 9700;

beforeAll(async () => {
  world = await startKhaltiGateways("gateways", "gateways-e2e-secret", {
    PAYMENT_WINDOW_SECONDS: String(WINDOW_MS / 1000),
  });
});
afterEach(() => world.reset());
afterAll(() => world.stop());

const topupCalls = () =>
  world.stack.sandbox.requests.filter((r) => r.operation === "subscription-package-topup").length;
const withLink = () => world.withLink(++nextUser);

/** The buyer's purchase in the ledger: its phase and when its payment window closes. */
async function purchaseOf(buyer: number): Promise<{ phase: string; expiresAt: number }> {
  const client = new pg.Client({ connectionString: world.stack.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT phase, payment_expires_at FROM purchases WHERE buyer = $1",
      [buyer],
    );
    const row = rows[0] as { phase: string; payment_expires_at: Date };
    return { phase: row.phase, expiresAt: row.payment_expires_at.getTime() };
  } finally {
    await client.end();
  }
}

const isLookup = (path: string) => path === "/api/v2/epayment/lookup/";
const pidxOf = (body: string) => (JSON.parse(body) as { pidx: string }).pidx;

describe("a gateway in front of the provider", () => {
  it.each([
    ["429", { status: 429, contentType: "text/plain", text: "Too Many Requests" }],
    ["409", { status: 409, contentType: "application/json", text: '{"error":"Conflict"}' }],
    ["an HTML 404", gatewayPage(404, "Not Found")],
  ] as [string, GatewayAnswer][])(
    "forwards the top-up, then answers %s: executed once, found by txn-status, receipt",
    async (_, lost) => {
      let forwarded = 0;
      const shown = new Set<string>();
      world.providerGateway.handle = async (request, forward) => {
        if (request.path.endsWith("/subscription-package-topup")) {
          forwarded++;
          await forward();
          return lost;
        }
        if (request.path.endsWith("/txn-status")) {
          // The provider shows a new transaction only a moment later: the first ask for a
          // token finds nothing. One ask, then a new top-up, is how two were executed.
          const { checkoutId } = JSON.parse(request.body) as { checkoutId: string };
          if (!shown.has(checkoutId)) {
            shown.add(checkoutId);
            return forward(JSON.stringify({ checkoutId: `${checkoutId}-not-yet` }));
          }
        }
        return forward();
      };
      const { user, pidx } = await withLink();
      const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
      world.khalti.pay(pidx);
      await receipt;
      // Time for a second call, had there been one.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(forwarded).toBe(1);
      expect(topupCalls()).toBe(1);
      expect(world.stack.sandbox.topups).toHaveLength(1);
      expect(shown.size).toBe(1);
      expect(user.messages().some((m) => /refund|declined/i.test(m.text ?? ""))).toBe(false);
    },
  );
});

describe("a gateway in front of Khalti", () => {
  it("answers lookups with an HTML 404 past the payment window: still found once let through, and topped up", async () => {
    const pages: number[] = [];
    let blocked = true;
    world.khaltiGateway.handle = async (request, forward) => {
      if (!(blocked && isLookup(request.path))) return forward();
      pages.push(Date.now());
      return gatewayPage(404, "Not Found");
    };
    const { user, pidx } = await withLink();
    world.khalti.pay(pidx);
    const { expiresAt } = await purchaseOf(user.id);
    await until(() => pages.some((at) => at > expiresAt), 5_000);
    expect(await purchaseOf(user.id)).toMatchObject({ phase: "awaiting-payment" });
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    blocked = false;
    await receipt;
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(world.stack.sandbox.topups).toHaveLength(1);
    expect(user.messages().some((m) => m.text?.includes("not paid in time"))).toBe(false);
  });

  it("ends the purchase on Khalti's own not found only at a lookup after the window", async () => {
    const notFound: number[] = [];
    world.khaltiGateway.handle = async (request, forward) => {
      if (!isLookup(request.path)) return forward();
      // Khalti's own answer to a pidx it does not know (the sandbox's 404).
      const answer = await forward(JSON.stringify({ pidx: `${pidxOf(request.body)}-unknown` }));
      if (answer.status === 404) notFound.push(Date.now());
      return answer;
    };
    const { user } = await withLink();
    await user.waitForText("not paid in time", { timeoutMs: 8_000 });
    const endedAt = Date.now();
    const { phase, expiresAt } = await purchaseOf(user.id);
    expect(phase).toBe("unpaid");
    // Not found before the window closed, and waiting on; ended after it.
    expect(notFound.filter((at) => at < expiresAt).length).toBeGreaterThanOrEqual(1);
    expect(notFound.at(-1)).toBeGreaterThan(expiresAt);
    expect(endedAt).toBeGreaterThan(expiresAt);
    expect(world.stack.sandbox.topups).toHaveLength(0);
  });
});
