// PAYMENT_MODE=esewa: the subscriber pays through eSewa ePay v2 (the eSewa sandbox in tools/):
// the bot's pay page posts the signed form, eSewa's redirects are only hints, and the bot
// believes the status check alone. eSewa has no refund API: a refund owed is a person's task.
import { createHmac } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buttonsOf, expectReply } from "../support/chat.js";
import {
  ESEWA_PRODUCT,
  ESEWA_SECRET,
  type EsewaGateways,
  startEsewaGateways,
} from "../support/esewa-gateways.js";
import { gatewayPage } from "../support/gateway-proxy.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { until } from "../support/wait.js";

const ADMIN = 9501;
/** The redirect pages ask eSewa at most once this long per purchase. */
const LOOKUP_INTERVAL_MS = 500;
let gw: EsewaGateways;
let nextUser = 9600;

beforeAll(async () => {
  gw = await startEsewaGateways("esewa", {
    ADMIN_USER_IDS: String(ADMIN),
    RETURN_PAGE_LOOKUP_MS: String(LOOKUP_INTERVAL_MS),
  });
});
afterEach(() => gw.reset());
afterAll(() => gw.stop());

const topups = () => gw.stack.sandbox.topups.length;
const hmac = (input: string) =>
  createHmac("sha256", ESEWA_SECRET).update(input, "utf8").digest("base64");

/** A redirect's data as eSewa would send it, signed with `key`. */
function redirectData(fields: Record<string, string>, key = ESEWA_SECRET): string {
  const names =
    "transaction_code,status,total_amount,transaction_uuid,product_code,signed_field_names";
  const all = { ...fields, signed_field_names: names };
  const input = names
    .split(",")
    .map((name) => `${name}=${all[name as keyof typeof all]}`)
    .join(",");
  const signature = createHmac("sha256", key).update(input, "utf8").digest("base64");
  return Buffer.from(JSON.stringify({ ...all, signature })).toString("base64");
}

/** Rows of the bot's ledger. */
async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: gw.stack.env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

const textsOf = (user: { messages(): { text?: string }[] }) =>
  user.messages().map((message) => message.text ?? "");

/**
 * A form of the test's own for NPR 7 under the offer's uuid (the bot asked for 700), signed with
 * the merchant's key and posted to eSewa: eSewa takes it as another payment of that uuid.
 */
async function postFormForSeven(uuid: string): Promise<void> {
  const other = {
    ...Object.fromEntries((await gw.openPayPage(`${gw.base}/pay/esewa/${uuid}`)).fields),
  };
  other.amount = "7";
  other.total_amount = "7";
  other.signature = hmac(`total_amount=7,transaction_uuid=${uuid},product_code=${ESEWA_PRODUCT}`);
  const form = await fetch(gw.esewa.formUrl, {
    method: "POST",
    body: new URLSearchParams(other),
    redirect: "manual",
  });
  expect(form.status).toBe(302);
}

/** A new buyer with the link, the pay page opened and its form posted to eSewa. */
async function posted() {
  const link = await gw.withLink(++nextUser);
  const page = await gw.openPayPage(link.payUrl);
  await gw.submit(page);
  return { ...link, page };
}

describe("paying with eSewa", () => {
  it("the pay page posts eSewa's signed form (checked with an independent HMAC), without JavaScript", async () => {
    const { user, link, payUrl, uuid } = await gw.withLink(++nextUser);
    expect(buttonsOf(user, link)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Pay NPR.*with eSewa/),
        "✅ I have paid",
        "Cancel",
      ]),
    );
    expect(payUrl).toBe(`${gw.base}/pay/esewa/${uuid}`);
    expect(uuid).toMatch(/^[A-Za-z0-9-]+$/);
    const page = await gw.openPayPage(payUrl);
    expect(page.status).toBe(200);
    expect(page.action).toBe(gw.esewa.formUrl);
    const fields = Object.fromEntries(page.fields);
    expect(page.fields.map(([name]) => name)).toEqual([
      "amount",
      "tax_amount",
      "total_amount",
      "transaction_uuid",
      "product_code",
      "product_service_charge",
      "product_delivery_charge",
      "success_url",
      "failure_url",
      "signed_field_names",
      "signature",
    ]);
    expect(fields).toMatchObject({
      amount: "700.00",
      tax_amount: "0",
      total_amount: "700.00",
      transaction_uuid: uuid,
      product_code: ESEWA_PRODUCT,
      product_service_charge: "0",
      product_delivery_charge: "0",
      success_url: `${gw.base}/pay/esewa/success`,
      failure_url: `${gw.base}/pay/esewa/failure/${uuid}`,
      signed_field_names: "total_amount,transaction_uuid,product_code",
    });
    expect(fields.signature).toBe(
      hmac(`total_amount=700.00,transaction_uuid=${uuid},product_code=${ESEWA_PRODUCT}`),
    );
    // A visible button submits it; no script is needed (none is allowed).
    expect(page.html).toMatch(/<button type="submit"[^>]*>Pay with eSewa<\/button>/);
    expect(page.html).not.toContain("<script");
    expect(page.html).toContain("<dd>Gold</dd><");
    expect(page.html).toContain("<dd>monthly</dd>");
    expect(page.html).toMatch(/<span class="amount-value">NPR\s700\.00<\/span>/);
    // Styled by the bot's own stylesheet only: no inline style, and the CSP allows none.
    expect(page.html).toMatch(/<link rel="stylesheet" href="\/pay\/style\.css\?v=\w+">/);
    expect(page.html).not.toMatch(/<style|style=/);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`form-action ${new URL(gw.esewa.formUrl).origin}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    // An unknown uuid: a plain 404, and eSewa is not asked.
    const before = gw.esewa.calls.requests.length;
    expect((await fetch(`${gw.base}/pay/esewa/unknown-0000`)).status).toBe(404);
    expect((await fetch(`${gw.base}/pay/esewa/failure/unknown-0000`)).status).toBe(404);
    expect(gw.esewa.calls.requests.length).toBe(before);
  });

  it("paid through the redirect: the success page runs the status check and the top-up follows", async () => {
    const { user, uuid } = await posted();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    // The buyer presses Pay on eSewa's page: eSewa sends the browser to success_url?data=.
    const paid = await fetch(`${gw.esewa.url}/pay/${uuid}/confirm`, {
      method: "POST",
      redirect: "manual",
    });
    const location = paid.headers.get("location") ?? "";
    expect(location.startsWith(`${gw.base}/pay/esewa/success?data=`)).toBe(true);
    const back = await fetch(location);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain("Payment received");
    expect((await receipt).text).toContain("with eSewa");
    await sleep(1_500); // more checks: nothing is topped up twice
    expect(topups()).toBe(1);
    const [purchase] = await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id);
    expect(purchase).toMatchObject({ phase: "charged" });
  });

  it("paid and never redirected: the periodic status check finds it", async () => {
    const { user, uuid } = await posted();
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    gw.esewa.pay(uuid);
    await receipt;
    expect(topups()).toBe(1);
  });

  it("a forged data, a valid one eSewa does not confirm, and another amount: no top-up", async () => {
    const { user, uuid } = await posted();
    const checksBefore = gw.esewa.calls.statusChecks(uuid);
    // Signed with another key: an error page, nothing asked for it.
    const forged = redirectData(
      {
        transaction_code: "000AAA1",
        status: "COMPLETE",
        total_amount: "700.0",
        transaction_uuid: uuid,
        product_code: ESEWA_PRODUCT,
      },
      "not-the-key",
    );
    const forgedPage = await fetch(
      `${gw.base}/pay/esewa/success?data=${encodeURIComponent(forged)}`,
    );
    expect(forgedPage.status).toBe(400);
    expect(await forgedPage.text()).toContain("could not be verified");
    // Altered after signing: the same.
    const valid = JSON.parse(
      Buffer.from(
        redirectData({
          transaction_code: "000AAA1",
          status: "COMPLETE",
          total_amount: "700.0",
          transaction_uuid: uuid,
          product_code: ESEWA_PRODUCT,
        }),
        "base64",
      ).toString(),
    );
    const altered = Buffer.from(JSON.stringify({ ...valid, total_amount: "7.0" })).toString(
      "base64",
    );
    expect(
      (await fetch(`${gw.base}/pay/esewa/success?data=${encodeURIComponent(altered)}`)).status,
    ).toBe(400);
    expect((await fetch(`${gw.base}/pay/esewa/success?data=bm90IGpzb24`)).status).toBe(400);
    expect((await fetch(`${gw.base}/pay/esewa/success`)).status).toBe(400);
    // The periodic check runs once a second; the pages added none of their own.
    expect(gw.esewa.calls.statusChecks(uuid) - checksBefore).toBeLessThanOrEqual(2);

    // A valid signature for a payment eSewa does not have: only a hint, and the check says no.
    const hint = redirectData({
      transaction_code: "000AAA2",
      status: "COMPLETE",
      total_amount: "700.0",
      transaction_uuid: uuid,
      product_code: ESEWA_PRODUCT,
    });
    const hinted = await fetch(`${gw.base}/pay/esewa/success?data=${encodeURIComponent(hint)}`);
    expect(hinted.status).toBe(200);
    expect(await hinted.text()).toContain("has not confirmed a payment");

    // Another amount paid under the same uuid (a form of the test's own, for NPR 7): the status
    // check for the price asked does not find it.
    await postFormForSeven(uuid);
    gw.esewa.pay(uuid);
    const otherHint = redirectData({
      transaction_code: gw.esewa.payment(uuid)?.refId ?? "",
      status: "COMPLETE",
      total_amount: "7.0",
      transaction_uuid: uuid,
      product_code: ESEWA_PRODUCT,
    });
    await sleep(LOOKUP_INTERVAL_MS);
    const otherPage = await fetch(
      `${gw.base}/pay/esewa/success?data=${encodeURIComponent(otherHint)}`,
    );
    expect(await otherPage.text()).toContain("has not confirmed a payment");
    await sleep(2_000); // periodic checks too
    expect(topups()).toBe(0);
    expect(user.messages().some((m) => m.text?.includes("Top-up successful"))).toBe(false);
    expect((await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id))[0]?.phase).toBe(
      "awaiting-payment",
    );
  });

  it("PENDING, then COMPLETE: the buyer is told once that it was started and not finished, then topped up", async () => {
    const { user, uuid } = await posted();
    gw.esewa.leavePending(uuid);
    const said = await user.waitForText("started but not finished", { timeoutMs: 5_000 });
    expect(said.text).not.toMatch(/processing/i);
    // The failure URL (where eSewa sends a pending payment) checks too, and says the same.
    const failure = await (await fetch(`${gw.base}/pay/esewa/failure/${uuid}`)).text();
    expect(failure).toContain("started but not finished");
    expect(failure).not.toMatch(/processing/i);
    // More checks (one a second): said once.
    const checks = gw.esewa.calls.statusChecks(uuid);
    await until(() => gw.esewa.calls.statusChecks(uuid) >= checks + 2, 5_000);
    expect(
      user.messages().filter((m) => m.text?.includes("started but not finished")),
    ).toHaveLength(1);
    expect(topups()).toBe(0);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    gw.esewa.pay(uuid);
    await receipt;
    expect(topups()).toBe(1);
  });

  it("AMBIGUOUS holds like PENDING until eSewa settles", async () => {
    const { user, uuid } = await posted();
    gw.esewa.pay(uuid);
    gw.esewa.faults.statusAmbiguous(uuid);
    await user.waitForText("still processing", { timeoutMs: 5_000 });
    expect(topups()).toBe(0);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    gw.esewa.faults.clear();
    await receipt;
    expect(topups()).toBe(1);
  });

  it("cancelled on eSewa: the failure URL checks, and the purchase ends unpaid", async () => {
    const { user, uuid } = await posted();
    const cancelled = user.waitForText("Payment cancelled", { timeoutMs: 8_000 });
    const back = await fetch(`${gw.esewa.url}/pay/${uuid}/cancel`, {
      method: "POST",
      redirect: "manual",
    });
    expect(back.headers.get("location")).toBe(`${gw.base}/pay/esewa/failure/${uuid}`);
    const page = await fetch(back.headers.get("location") ?? "");
    expect(await page.text()).toContain("cancelled or has expired");
    await cancelled;
    expect(topups()).toBe(0);
    expect((await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id))[0]?.phase).toBe("unpaid");
  });

  it("keeps asking while the status check fails, and tops up once it answers", async () => {
    const { user, uuid } = await posted();
    gw.esewa.faults.statusFails(3, "unavailable");
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    gw.esewa.pay(uuid);
    await receipt;
    expect(topups()).toBe(1);
  });

  it("a top-up refused after payment is a refund for a person: /refunds, /refunded, the buyer told", async () => {
    const { user, uuid } = await posted();
    gw.stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const admin = gw.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("Refund due", { timeoutMs: 10_000 });
    const owed = user.waitForText("will be refunded", { timeoutMs: 10_000 });
    gw.esewa.pay(uuid);
    await owed;
    const refId = gw.esewa.payment(uuid)?.refId ?? "";
    expect(refId).not.toBe("");
    const alerted = (await alert).text ?? "";
    expect(alerted).toContain(refId);
    expect(alerted).toContain("eSewa has no refund API");
    expect(topups()).toBe(0);
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain(refId);
    expect(listed.text).toMatch(/NPR\s700\.00/);
    expect(listed.text).toContain(String(user.id));
    const [purchase] = await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id);
    const told = user.waitForText("was refunded", { timeoutMs: 8_000 });
    await expectReply(admin, () => admin.sendText(`/refunded ${purchase?.id} portal`), "Recorded");
    await told;
    expect((await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id))[0]?.phase).toBe(
      "refunded",
    );
  }, 30_000);
  it("FULL_REFUND read by a status check closes a refund owed; PARTIAL_REFUND does not", async () => {
    const { user, uuid } = await posted();
    gw.stack.sandbox.setFault("subscription-package-topup", { kind: "reject", code: "EXPIRED" });
    const owed = user.waitForText("will be refunded", { timeoutMs: 10_000 });
    gw.esewa.pay(uuid);
    await owed;
    const databaseUrl = gw.stack.env.DATABASE_URL ?? "";
    // Refunded in part from eSewa's portal: still owed, for a person.
    gw.esewa.setStatus(uuid, "PARTIAL_REFUND");
    const checks = gw.esewa.calls.statusChecks(uuid);
    await until(() => gw.esewa.calls.statusChecks(uuid) >= checks + 2, 10_000);
    expect((await purchasesOf(databaseUrl, user.id))[0]?.phase).toBe("refund-due");
    // Then in full: the next check closes it, and the buyer is told.
    const told = user.waitForText("was refunded", { timeoutMs: 8_000 });
    gw.esewa.setStatus(uuid, "FULL_REFUND");
    await told;
    expect((await purchasesOf(databaseUrl, user.id))[0]?.phase).toBe("refunded");
    const admin = gw.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), /Refunds|No refunds/);
    expect(listed.text).not.toContain(gw.esewa.payment(uuid)?.refId ?? "-");
    // Told once: by whoever marked it (its purchase leased to them), not by a reconciliation
    // pass too (test/integration/ledger-payments.test.ts holds that race still).
    await until(
      async () => (await purchasesOf(databaseUrl, user.id))[0]?.told === "refunded",
      5_000,
    );
    expect(user.messages().filter((m) => m.text?.includes("was refunded"))).toHaveLength(1);
    expect(topups()).toBe(0);
  }, 30_000);

  it("FULL_REFUND before the bot saw it paid: ended unpaid, nothing topped up, operators told", async () => {
    const { user, uuid } = await posted();
    const admin = gw.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("given back outside the bot", { timeoutMs: 8_000 });
    gw.esewa.setStatus(uuid, "FULL_REFUND");
    expect((await alert).text).toContain(uuid);
    await until(
      async () =>
        (await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id))[0]?.phase === "unpaid",
      5_000,
    );
    expect(topups()).toBe(0);
  });

  it("a proxy's page in front of eSewa is no answer: asked again, then topped up", async () => {
    const { user, uuid } = await posted();
    gw.esewaGateway.handle = async () => gatewayPage(404, "Not Found");
    gw.esewa.pay(uuid);
    await sleep(2_000);
    expect(topups()).toBe(0);
    expect((await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id))[0]?.phase).toBe(
      "awaiting-payment",
    );
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    gw.esewaGateway.handle = (_, forward) => forward();
    await receipt;
    expect(topups()).toBe(1);
  });

  it("PARTIAL_REFUND while awaiting: the payment and the part refunded recorded, the rest a person's, all told; /refunded by eSewa's ref_id", async () => {
    const { user, uuid } = await posted();
    const admin = gw.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alert = admin.waitForText("Refund of the rest due", { timeoutMs: 8_000 });
    const owed = user.waitForText("the rest will be refunded", { timeoutMs: 8_000 });
    // Paid, and part of it given back from eSewa's merchant portal before the bot asked.
    gw.esewa.pay(uuid);
    gw.esewa.setStatus(uuid, "PARTIAL_REFUND");
    const refId = gw.esewa.payment(uuid)?.refId ?? "?";
    expect((await alert).text).toContain(refId);
    expect((await owed).text).toContain("eSewa says part of your payment of NPR");
    expect(topups()).toBe(0);
    expect(textsOf(user).some((text) => /nothing was charged|Top-up successful/i.test(text))).toBe(
      false,
    );
    const [row] = await query<{ applied: boolean; refund: string; part: boolean }>(
      `SELECT applied, refund, outside_refund_seen_at IS NOT NULL AS part
         FROM payments WHERE method = 'esewa' AND charge_id = $1`,
      [uuid],
    );
    expect(row).toEqual({ applied: false, refund: "due", part: true });
    expect((await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id))[0]?.phase).toBe("unpaid");
    // Its pages say so, never "nothing was charged".
    const page = await (await fetch(`${gw.base}/pay/esewa/failure/${uuid}`)).text();
    expect(page).toContain("eSewa gave part of this payment back to you");
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain(refId);
    expect(listed.text).toContain("Part of it was given back outside the bot");
    // The rest refunded from the portal: /refunded by the ref_id /refunds shows.
    const rest = user.waitForText("The rest of your payment", { timeoutMs: 8_000 });
    await expectReply(admin, () => admin.sendText(`/refunded ${refId} portal`), "Recorded");
    await rest;
    await expectReply(admin, () => admin.sendText(`/refunded ${refId}`), "No refund is due");
  }, 30_000);

  it("COMPLETE for another amount: set aside, one alert, listed, the buyer told that staff check it", async () => {
    const { user, uuid } = await posted();
    const admin = gw.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    // A form of the test's own for NPR 7 under the same uuid, paid; eSewa answers the bot's
    // status check (asked for 700) with COMPLETE for 7.0.
    await postFormForSeven(uuid);
    const alerts = () => textsOf(admin).filter((text) => text.includes("A payment was set aside"));
    const told = user.waitForText("Our staff are checking it", { timeoutMs: 8_000 });
    gw.esewa.faults.statusAnyAmount(uuid);
    gw.esewa.pay(uuid);
    await told;
    await until(() => alerts().length > 0, 5_000);
    expect(alerts()[0]).toContain("COMPLETE for 7.0 when asked about 700.00");
    expect(alerts()[0]).toContain(uuid);
    // Another buyer's offer, checked every second: a clock. Nothing is said again.
    const clock = await posted();
    const ticks = gw.esewa.calls.statusChecks(clock.uuid);
    await until(() => gw.esewa.calls.statusChecks(clock.uuid) >= ticks + 3, 10_000);
    expect(alerts()).toHaveLength(1);
    expect(textsOf(user).filter((text) => text.includes("Our staff are checking it"))).toHaveLength(
      1,
    );
    expect(topups()).toBe(0);
    expect((await purchasesOf(gw.stack.env.DATABASE_URL ?? "", user.id))[0]?.phase).toBe("unpaid");
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "set aside");
    expect(listed.text).toContain(uuid);
    expect(listed.text).toContain("COMPLETE for 7.0");
    gw.esewa.cancel(clock.uuid);
  }, 30_000);

  it("PENDING still after the offer can no longer be paid: raised once, listed, still asked; settled when eSewa answers", async () => {
    const { user, uuid } = await posted();
    const admin = gw.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    gw.esewa.leavePending(uuid);
    await user.waitForText("started but not finished", { timeoutMs: 5_000 });
    const raised = () => textsOf(admin).filter((text) => text.includes("still unsettled at esewa"));
    expect(raised()).toEqual([]);
    // The offer could no longer be paid long ago (its payable time moved back, as time would).
    await query(
      "UPDATE payment_offers SET payable_until = now() - interval '1 hour' WHERE handle = $1",
      [uuid],
    );
    await until(() => raised().length > 0, 8_000);
    expect(raised()[0]).toContain(uuid);
    expect(raised()[0]).toContain("started and not finished");
    // Still asked (every second), never raised again.
    const checks = gw.esewa.calls.statusChecks(uuid);
    await until(() => gw.esewa.calls.statusChecks(uuid) >= checks + 3, 10_000);
    expect(raised()).toHaveLength(1);
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "set aside");
    expect(listed.text).toContain(uuid);
    expect(listed.text).toContain("still unsettled at the payment system");
    // eSewa settles it: topped up, and the bot closes what it raised.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    gw.esewa.pay(uuid);
    await receipt;
    expect(topups()).toBe(1);
    await until(
      async () =>
        (
          await query<{ closed_by: string | null }>(
            "SELECT closed_by FROM payment_anomalies WHERE charge_id = $1",
            [uuid],
          )
        )[0]?.closed_by === "bot",
      5_000,
    );
    // No longer listed (other tests' payments set aside may be).
    const after = await expectReply(
      admin,
      () => admin.sendText("/refunds"),
      /set aside|No refunds/,
    );
    expect(after.text).not.toContain(uuid);
  }, 40_000);
});
