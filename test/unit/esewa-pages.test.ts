// eSewa's pages with the real signatures and texts, the ledger and the payment service faked:
// what each page asks the payment service, and what it shows.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EsewaCheckout } from "../../src/adapters/payments/esewa/esewa.js";
import { esewaPages } from "../../src/bot/features/payments/esewa-pages.js";
import type { PaymentPage } from "../../src/bot/features/payments/payment-pages.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { CheckOutcome } from "../../src/domain/payment-service.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { purchaseOf } from "../support/purchases.js";

const KEY = "8gBm/:&EnhH.1/q";
const UUID = "a1b2c3d4e5-3-0f0e0d0c";
const BASE = "https://bot.example.com";

const OFFER_MS = 3_600_000;

function setUp(purchase: Purchase, outcome: CheckOutcome = "waiting", keeps = true) {
  const checks: string[] = [];
  const looked: string[] = [];
  const kept: string[] = [];
  let clock = 0;
  const pages = esewaPages({
    ledger: {
      byOffer: async (method, handle) => {
        looked.push(`${method}:${handle}`);
        return method === "esewa" && handle === UUID ? purchase : null;
      },
      keepOfferUntil: async (offer, until) => {
        if (!keeps) throw new Error("the ledger is away");
        kept.push(`${offer.purchaseId}:${offer.method}:${offer.handle}:${until}`);
      },
    },
    payments: {
      checkOffer: async ({ id }) => {
        checks.push(id);
        return outcome;
      },
    },
    checkout: new EsewaCheckout({
      productCode: "EPAYTEST",
      secretKey: KEY,
      formUrl: "https://rc-epay.esewa.com.np/api/epay/main/v2/form",
      pages: {
        pay: `${BASE}/pay/esewa/`,
        success: `${BASE}/pay/esewa/success`,
        failure: `${BASE}/pay/esewa/failure/`,
      },
    }),
    i18n: new Translator(),
    formatter: (locale) => new ValueFormatter(locale, "UTC", "NPR"),
    chatLink: () => "https://t.me/topup_bot",
    offerMs: OFFER_MS,
    now: () => clock,
  });
  const open = (path: string) => {
    const url = new URL(path, BASE);
    const page = pages.find((candidate: PaymentPage) =>
      candidate.prefix ? url.pathname.startsWith(candidate.path) : candidate.path === url.pathname,
    );
    if (!page) throw new Error(`no page for ${path}`);
    return page.render(url.searchParams, url.pathname);
  };
  return { open, checks, looked, kept, tick: (ms: number) => (clock += ms) };
}

const awaiting = () =>
  purchaseOf({
    id: "a1b2c3d4e5-3",
    language: "ne",
    phase: "awaiting-payment",
    payment: { method: "esewa", currency: "NPR", minor: 70_050, expiresAt: 1e15, offer: UUID },
  });

function data(fields: Record<string, string>, key = KEY): string {
  const names =
    "transaction_code,status,total_amount,transaction_uuid,product_code,signed_field_names";
  const all: Record<string, string> = { ...fields, signed_field_names: names };
  const input = names
    .split(",")
    .map((name) => `${name}=${all[name]}`)
    .join(",");
  const signature = createHmac("sha256", key).update(input).digest("base64");
  return encodeURIComponent(Buffer.from(JSON.stringify({ ...all, signature })).toString("base64"));
}

const paid = {
  transaction_code: "000AWEO",
  status: "COMPLETE",
  total_amount: "700.5",
  transaction_uuid: UUID,
  product_code: "EPAYTEST",
};

describe("eSewa's pages", () => {
  it("the pay page: the exact amount from paisa, signed, in the buyer's language, no check made", async () => {
    const { open, checks } = setUp(awaiting());
    const { status, html } = await open(`/pay/esewa/${UUID}`);
    expect(status).toBe(200);
    expect(html).toContain('lang="ne"');
    expect(html).toContain('name="total_amount" value="700.50"');
    const signature = createHmac("sha256", KEY)
      .update(`total_amount=700.50,transaction_uuid=${UUID},product_code=EPAYTEST`)
      .digest("base64");
    expect(html).toContain(`name="signature" value="${signature}"`);
    expect(html).toContain(`name="failure_url" value="${BASE}/pay/esewa/failure/${UUID}"`);
    expect(html).toMatch(/<button type="submit"/);
    expect(checks).toEqual([]);
  });

  it("each form served keeps the offer watched ESEWA_OFFER_MINUTES from then; unwritable, no form", async () => {
    const { open, kept, tick } = setUp(awaiting());
    await open(`/pay/esewa/${UUID}`);
    tick(120_000);
    await open(`/pay/esewa/${UUID}`);
    expect(kept).toEqual([
      `a1b2c3d4e5-3:esewa:${UUID}:${OFFER_MS}`,
      `a1b2c3d4e5-3:esewa:${UUID}:${120_000 + OFFER_MS}`,
    ]);
    const away = setUp(awaiting(), "waiting", false);
    const page = await away.open(`/pay/esewa/${UUID}`);
    expect(page.status).toBe(503);
    expect(page.html).not.toContain("<form");
    expect(page.html).toContain("केही पनि काटिएको छैन");
  });

  it("a page of an offer whose payment pays for nothing says it is refunded, not 'nothing charged'", async () => {
    const purchase = awaiting();
    purchase.phase = "unpaid";
    const { open, checks } = setUp(purchase, "refund");
    const { html } = await open(`/pay/esewa/failure/${UUID}`);
    expect(checks).toEqual(["a1b2c3d4e5-3"]);
    expect(html).toContain("फिर्ता गरिनेछ");
    expect(html).not.toContain("केही पनि काटिएको छैन");
  });

  it("the pay page of a purchase no longer waiting, or past its window, has no form", async () => {
    const purchase = awaiting();
    purchase.phase = "unpaid";
    const { open } = setUp(purchase, "ended");
    const { html, status } = await open(`/pay/esewa/${UUID}`);
    expect(status).toBe(200);
    expect(html).not.toContain("<form");
    const late = awaiting();
    if (late.payment) late.payment.expiresAt = 500;
    const past = setUp(late, "ended");
    past.tick(501);
    expect((await past.open(`/pay/esewa/${UUID}`)).html).not.toContain("<form");
    expect(past.checks).toEqual(["a1b2c3d4e5-3"]);
  });

  it("unknown or malformed uuids are a 404 without asking anyone", async () => {
    const { open, checks, looked } = setUp(awaiting());
    expect((await open("/pay/esewa/nope-1")).status).toBe(404);
    expect((await open("/pay/esewa/a%22b")).status).toBe(404);
    expect((await open("/pay/esewa/failure/nope-1")).status).toBe(404);
    expect(checks).toEqual([]);
    expect(looked).toEqual(["esewa:nope-1", "esewa:nope-1"]);
  });

  it("a forged, altered or missing data: an error page, neither the ledger nor eSewa asked", async () => {
    const { open, checks, looked } = setUp(awaiting(), "paid");
    const altered = JSON.parse(
      Buffer.from(decodeURIComponent(data(paid)), "base64").toString(),
    ) as Record<string, string>;
    altered.total_amount = "7.0";
    for (const query of [
      `data=${data(paid, "another key")}`,
      `data=${encodeURIComponent(Buffer.from(JSON.stringify(altered)).toString("base64"))}`,
      `data=${data({ ...paid, product_code: "SOMEONE" })}`,
      "data=%%%",
      "",
    ]) {
      const { status, html } = await open(`/pay/esewa/success?${query}`);
      expect(status).toBe(400);
      expect(html).toContain("could not be verified");
    }
    expect(checks).toEqual([]);
    expect(looked).toEqual([]);
  });

  it("a valid data, or the failure URL, runs the status check of its offer and shows it", async () => {
    // eSewa's PENDING: started there and not finished, said as such (not "processing").
    const { open, checks } = setUp(awaiting(), "unfinished");
    const first = await open(`/pay/esewa/success?data=${data(paid)}`);
    expect(first.status).toBe(200);
    expect(first.html).toContain("इसेवा भन्छ कि तपाईंको भुक्तानी सुरु भयो तर पूरा भएन");
    expect(first.html).not.toContain("प्रक्रिया गर्दैछ");
    // Each load asks the service, which asks eSewa at most once an interval per offer
    // (PaymentService.checkOffer; the throttle: check-throttle.test.ts).
    await open(`/pay/esewa/failure/${UUID}`);
    expect(checks).toEqual(["a1b2c3d4e5-3", "a1b2c3d4e5-3"]);
  });
});
