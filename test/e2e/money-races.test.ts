// Races on one purchase, made deterministic by holding one answer while another goes through:
// a periodic Khalti lookup that answers "Initiated" late, after the return page's lookup found the
// payment and the top-up finished, changes nothing (the ledger refuses its stale write); and a
// payment owed back whose top-up txn-status finds after all, at the last look before the refund,
// is charged and told, never refunded.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { type GatewayProxy, gatewayPage, startGatewayProxy } from "../support/gateway-proxy.js";
import { freePort } from "../support/ports.js";
import { type Stack, startStack } from "../support/stack.js";
import { until } from "../support/wait.js";

const SECRET = "races-e2e-secret";
const ADMIN = 9801;
let stack: Stack | undefined;
let khalti: KhaltiSandbox;
let providerGateway: GatewayProxy;
let khaltiGateway: GatewayProxy;
let base: string;
let nextUser = 9810;

beforeAll(async () => {
  khalti = await createKhaltiSandbox({ secretKey: SECRET });
  khaltiGateway = await startGatewayProxy(() => khalti.url);
  providerGateway = await startGatewayProxy(() => stack?.sandbox.baseUrl());
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stack = await startStack("money_races", {
    PROVIDER_BASE_URL: providerGateway.url,
    PAYMENT_MODE: "khalti",
    KHALTI_SECRET_KEY: SECRET,
    KHALTI_BASE_URL: khaltiGateway.url,
    PUBLIC_URL: base,
    HTTP_PORT: String(port),
    HTTP_HOST: "127.0.0.1",
    PAYMENT_CHECK_SECONDS: "1",
    ADMIN_USER_IDS: String(ADMIN),
    // A token lives 2 s: "it did not happen" can be said (and wrongly, when txn-status lags)
    // within the test's few seconds.
    CHECKOUT_TTL_SECONDS: "2",
    CHECKOUT_SAFETY_MARGIN_SECONDS: "0",
  });
});
afterEach(() => {
  providerGateway.handle = (_, forward) => forward();
  khaltiGateway.handle = (_, forward) => forward();
  bot().sandbox.reset();
  khalti.faults.clear();
});
afterAll(async () => {
  await stack?.stop();
  await providerGateway.close();
  await khaltiGateway.close();
  await khalti.close();
});

const bot = (): Stack => {
  if (!stack) throw new Error("the stack did not start");
  return stack;
};

/** A new subscriber with a Khalti payment link for 1000001's Gold renewal in front of them. */
async function withLink(): Promise<{ user: ChatUser; pidx: string }> {
  const user = bot().emulator.user({ id: ++nextUser, first_name: "Rc", language_code: "en" });
  await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
  await expectReply(user, () => user.press(/Renew/), "Please confirm");
  await expectReply(user, () => user.press(/Pay NPR/), "with Khalti");
  return { user, pidx: khalti.payments().at(-1)?.pidx ?? "" };
}

/** The buyer's purchase and its payment as the ledger holds them. */
async function ledgerOf(buyer: number) {
  const client = new pg.Client({ connectionString: bot().env.DATABASE_URL });
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
    khaltiGateway.handle = async (request, forward) => {
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
    expect(khalti.payment(pidx)?.status).toBe("Initiated");
    // Meanwhile the buyer pays and comes back: the return page's lookup finds it Completed.
    khalti.pay(pidx);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const page = await fetch(`${base}/pay/khalti/return?pidx=${encodeURIComponent(pidx)}`);
    expect(page.status).toBe(200);
    await receipt;
    expect(await ledgerOf(user.id)).toMatchObject({ phase: "charged", told: "charged" });
    // The late "Initiated" arrives now.
    release();
    await until(() => lateAnswered, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await ledgerOf(user.id);
    expect(after).toMatchObject({ phase: "charged", told: "charged", refund: "none" });
    expect(after?.due_at).toBeNull();
    expect(bot().sandbox.topups).toHaveLength(1);
    // No longer looked up: nothing is due.
    const seen = lookups.length;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(lookups.length).toBe(seen);
    // The buyer's history and the admin's report say charged.
    const history = await expectReply(user, () => user.sendText("/history"), "✅ Done");
    expect(history.text).not.toContain("Not paid yet");
    const admin = bot().emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const report = await expectReply(admin, () => admin.sendText("/report"), "Charged: 1");
    expect(report.text).not.toContain("Waiting for payment");
  });
});

describe("the last look before a refund", () => {
  it("finds the top-up a lagging txn-status hid: charged and told, no refund", async () => {
    // The provider executes the top-up, but its answer is lost and txn-status shows nothing
    // until the refund's first try has failed.
    let hidden = true;
    providerGateway.handle = async (request, forward) => {
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
    khaltiGateway.handle = async (request, forward) => {
      if (!request.path.includes("/refund/")) return forward();
      refundCalls++;
      hidden = false;
      return gatewayPage(502, "Bad Gateway");
    };
    const { user, pidx } = await withLink();
    const owed = user.waitForText("refund", { timeoutMs: 10_000 });
    khalti.pay(pidx);
    await owed;
    const receipt = await user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    expect(receipt.text).toContain("with Khalti");
    expect(refundCalls).toBe(1);
    expect(khalti.calls.refunds()).toBe(0);
    expect(khalti.payment(pidx)?.status).toBe("Completed");
    expect(bot().sandbox.topups).toHaveLength(1);
    expect(await ledgerOf(user.id)).toMatchObject({
      phase: "charged",
      told: "charged",
      refund: "none",
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(refundCalls).toBe(1);
  });
});
