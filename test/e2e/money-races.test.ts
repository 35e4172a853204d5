// Races on one purchase, made deterministic by holding one answer while another goes through:
// a periodic Khalti lookup that answers "Initiated" late, after the return page's lookup found the
// payment and the top-up finished, changes nothing (the ledger refuses its stale write); and a
// payment owed back whose top-up txn-status finds after all, at the last look before the refund,
// is charged and told, never refunded. txn-status's "no such transaction" is believed only from
// the provider's envelope under 200 or 404 without Retry-After: the same envelope under a 429, or
// with Retry-After, leaves the top-up unknown (never refunded) until the provider answers.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectReply } from "../support/chat.js";
import { type GatewayAnswer, gatewayPage } from "../support/gateway-proxy.js";
import { type KhaltiGateways, startKhaltiGateways } from "../support/khalti-gateways.js";
import { until } from "../support/wait.js";

const ADMIN = 9801;
let world: KhaltiGateways;
let nextUser = 9810;

beforeAll(async () => {
  world = await startKhaltiGateways("money_races", "races-e2e-secret", {
    ADMIN_USER_IDS: String(ADMIN),
    // A token lives 2 s: "it did not happen" can be said (and wrongly, when txn-status lags)
    // within the test's few seconds.
    CHECKOUT_TTL_SECONDS: "2",
    CHECKOUT_SAFETY_MARGIN_SECONDS: "0",
  });
});
afterEach(() => world.reset());
afterAll(() => world.stop());

const withLink = () => world.withLink(++nextUser);

/** The buyer's purchase and its payment as the ledger holds them. */
async function ledgerOf(buyer: number) {
  const client = new pg.Client({ connectionString: world.stack.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{
      phase: string;
      told: string | null;
      txn_id: string | null;
      due_at: Date | null;
      refund: string | null;
    }>(
      `SELECT pu.phase, pu.told, pu.txn_id, pu.due_at, pa.refund
         FROM purchases pu LEFT JOIN payments pa ON pa.purchase_id = pu.id WHERE pu.buyer = $1`,
      [buyer],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

const isLookup = (path: string) => path === "/api/v2/epayment/lookup/";

describe("two answers about one purchase, the older one late", () => {
  it("a periodic lookup answering Initiated after the return page found it paid changes nothing", async () => {
    const { user, pidx } = await withLink();
    // The next periodic lookup is held, with the answer Khalti gave when it was asked.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held: Promise<unknown> | undefined;
    let lateAnswered = false;
    const lookups: number[] = [];
    world.khaltiGateway.handle = async (request, forward) => {
      if (!isLookup(request.path)) return forward();
      lookups.push(Date.now());
      if (held) return forward();
      const answer = await forward();
      held = released;
      await released;
      lateAnswered = true;
      return answer;
    };
    await until(() => held !== undefined, 5_000);
    expect(world.khalti.payment(pidx)?.status).toBe("Initiated");
    // Meanwhile the buyer pays and comes back: the return page's lookup finds it Completed.
    world.khalti.pay(pidx);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const page = await fetch(`${world.base}/pay/khalti/return?pidx=${encodeURIComponent(pidx)}`);
    expect(page.status).toBe(200);
    await receipt;
    await until(async () => (await ledgerOf(user.id))?.told === "charged", 3_000);
    expect(await ledgerOf(user.id)).toMatchObject({ phase: "charged", told: "charged" });
    // The late "Initiated" arrives now.
    release();
    await until(() => lateAnswered, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await ledgerOf(user.id);
    expect(after).toMatchObject({ phase: "charged", told: "charged", refund: "none" });
    expect(after?.due_at).toBeNull();
    expect(world.stack.sandbox.topups).toHaveLength(1);
    // No longer looked up: nothing is due.
    const seen = lookups.length;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(lookups.length).toBe(seen);
    // The buyer's history and the admin's report say charged.
    const history = await expectReply(user, () => user.sendText("/history"), "✅ Done");
    expect(history.text).not.toContain("Not paid yet");
    const admin = world.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const report = await expectReply(admin, () => admin.sendText("/report"), "Charged: 1");
    expect(report.text).not.toContain("Waiting for payment");
  });
});

describe("the last look before a refund", () => {
  it("finds the top-up a lagging txn-status hid: charged and told, no refund", async () => {
    // The provider executes the top-up, but its answer is lost and txn-status shows nothing
    // until the refund's first try has failed.
    let hidden = true;
    world.providerGateway.handle = async (request, forward) => {
      if (request.path.endsWith("/subscription-package-topup")) {
        await forward();
        return gatewayPage(502, "Bad Gateway");
      }
      if (hidden && request.path.endsWith("/txn-status")) {
        const { checkoutId } = JSON.parse(request.body) as { checkoutId: string };
        return forward(JSON.stringify({ checkoutId: `${checkoutId}-not-yet` }));
      }
      return forward();
    };
    let refundCalls = 0;
    world.khaltiGateway.handle = async (request, forward) => {
      if (!request.path.includes("/refund/")) return forward();
      refundCalls++;
      hidden = false;
      return gatewayPage(502, "Bad Gateway");
    };
    const { user, pidx } = await withLink();
    const owed = user.waitForText("refund", { timeoutMs: 10_000 });
    world.khalti.pay(pidx);
    await owed;
    const receipt = await user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    expect(receipt.text).toContain("with Khalti");
    expect(refundCalls).toBe(1);
    expect(world.khalti.calls.refunds()).toBe(0);
    expect(world.khalti.payment(pidx)?.status).toBe("Completed");
    expect(world.stack.sandbox.topups).toHaveLength(1);
    await until(async () => (await ledgerOf(user.id))?.told === "charged", 3_000);
    expect(await ledgerOf(user.id)).toMatchObject({
      phase: "charged",
      told: "charged",
      refund: "none",
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(refundCalls).toBe(1);
  });
});

describe("txn-status's no, believed only as the provider says it for good", () => {
  const no = (status: number, headers?: Record<string, string>): GatewayAnswer => ({
    status,
    contentType: "application/json",
    text: JSON.stringify({ success: false, code: "TXN-0", message: "", body: {} }),
    headers,
  });
  it.each([
    ["its envelope under a 429", no(429)],
    ["its envelope under a 200 with Retry-After", no(200, { "retry-after": "1" })],
    ["an HTML 404", gatewayPage(404, "Not Found")],
  ] as [string, GatewayAnswer][])(
    "%s after the top-up's answer was lost: unknown, never refunded, charged once answered",
    async (_, later) => {
      let sentAt = Number.POSITIVE_INFINITY;
      let blocked = true;
      const noes: number[] = [];
      world.providerGateway.handle = async (request, forward) => {
        if (request.path.endsWith("/subscription-package-topup")) {
          sentAt = Date.now();
          await forward();
          return gatewayPage(502, "Bad Gateway");
        }
        if (blocked && request.path.endsWith("/txn-status")) {
          noes.push(Date.now());
          return later;
        }
        return forward();
      };
      let refundCalls = 0;
      world.khaltiGateway.handle = async (request, forward) => {
        if (request.path.includes("/refund/")) refundCalls++;
        return forward();
      };
      const { user, pidx } = await withLink();
      world.khalti.pay(pidx);
      // The token (2 s) has expired and txn-status was asked twice since: had either "no" been
      // believed, the purchase would be owed back by now.
      await until(() => noes.filter((at) => at > sentAt + 2_500).length >= 2, 10_000);
      expect(await ledgerOf(user.id)).toMatchObject({ phase: "unknown", refund: "none" });
      expect(refundCalls).toBe(0);
      const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
      blocked = false;
      await receipt;
      expect(world.stack.sandbox.topups).toHaveLength(1);
      expect(refundCalls).toBe(0);
      expect(user.messages().some((m) => /refund/i.test(m.text ?? ""))).toBe(false);
    },
  );
});
