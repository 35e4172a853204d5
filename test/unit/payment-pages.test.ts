// The bot's payment pages as a buyer reads them (Khalti's return page, eSewa's pay and return
// pages, and the pages that name no purchase), rendered with the real texts and formats, the
// ledger and the payment service faked: the buyer's language, the package and period in words,
// the amount, the way back, and nothing but the project's stylesheet to style them.
import { describe, expect, it } from "vitest";
import { EsewaCheckout } from "../../src/adapters/payments/esewa/esewa.js";
import { esewaPages } from "../../src/bot/features/payments/esewa-pages.js";
import { khaltiReturnPage } from "../../src/bot/features/payments/khalti-return.js";
import { PAGE_STYLESHEET, STYLESHEET_HREF } from "../../src/bot/features/payments/page-style.js";
import type { PaymentPage } from "../../src/bot/features/payments/payment-pages.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { CheckOutcome } from "../../src/domain/payment-service.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { purchaseOf } from "../support/purchases.js";

const BASE = "https://bot.example.com";
const UUID = "a1b2c3d4e5-3-0f0e0d0c";
const PIDX = "bZQLD9wRVWo4CdESSfuSsB";
const CHAT = "https://t.me/topup_bot";

const OUTCOMES: CheckOutcome[] = [
  "paid",
  "refund",
  "waiting",
  "pending",
  "ended",
  "window-over",
  "unknown",
  "not-found",
  "checking",
];

/** Fiber 25 Mbps, monthly, for an internet connection, NPR 1,250: as the provider names it. */
function purchaseIn(language: string, phase: Purchase["phase"] = "awaiting-payment"): Purchase {
  return purchaseOf({
    id: "a1b2c3d4e5-3",
    language,
    phase,
    connection: { service: "internet", id: "fiber.ram.thapa" },
    bouquet: { code: "FIB25", name: "Fiber 25 Mbps (MONTHLY)", price: "1250" },
    payment: { method: "esewa", currency: "NPR", minor: 125_000, expiresAt: 1e15, offer: UUID },
  });
}

function site(purchase: Purchase, outcome: CheckOutcome = "waiting", ledgerAway = false) {
  const i18n = new Translator();
  const formatter = (locale: string) => new ValueFormatter(locale, "Asia/Kathmandu", "NPR");
  const ledger = {
    byOffer: async (method: string, handle: string) => {
      if (ledgerAway) throw new Error("connect ECONNREFUSED");
      return (method === "esewa" && handle === UUID) || (method === "khalti" && handle === PIDX)
        ? purchase
        : null;
    },
    keepOfferUntil: async () => {},
  };
  const payments = { checkOffer: async () => outcome };
  const pages: PaymentPage[] = [
    khaltiReturnPage(ledger, payments as never, i18n, formatter, () => CHAT),
    ...esewaPages({
      ledger,
      payments,
      checkout: new EsewaCheckout({
        productCode: "EPAYTEST",
        secretKey: "8gBm/:&EnhH.1/q",
        formUrl: "https://rc-epay.esewa.com.np/api/epay/main/v2/form",
        pages: {
          pay: `${BASE}/pay/esewa/`,
          success: `${BASE}/pay/esewa/success`,
          failure: `${BASE}/pay/esewa/failure/`,
        },
      }),
      i18n,
      formatter,
      chatLink: () => CHAT,
      offerMs: 3_600_000,
    }),
  ];
  return (path: string) => {
    const url = new URL(path, BASE);
    const page = pages.find((candidate) =>
      candidate.prefix ? url.pathname.startsWith(candidate.path) : candidate.path === url.pathname,
    );
    if (!page) throw new Error(`no page for ${path}`);
    return page.render(url.searchParams, url.pathname);
  };
}

/** The text of the first element of `className`, tags removed (Intl's no-break space a space). */
function textOf(html: string, className: string): string | undefined {
  const match = new RegExp(`<(\\w+) class="${className}"[^>]*>(.*?)</\\1>`).exec(html);
  return match?.[2]?.replace(/<[^>]+>/g, "").replace(/\s/g, " ");
}

/** The summary's rows, label → value. */
function rowsOf(html: string): Record<string, string> {
  return Object.fromEntries(
    [...html.matchAll(/<div><dt>(.*?)<\/dt><dd>(.*?)<\/dd><\/div>/g)].map((m) => [m[1], m[2]]),
  );
}

/** Styled by the one stylesheet linked from the server's own origin, and nothing else. */
function expectOnlyTheStylesheet(html: string): void {
  expect(html).toContain(`<link rel="stylesheet" href="${STYLESHEET_HREF}">`);
  expect(html.match(/<link /g)).toHaveLength(1);
  expect(html).not.toMatch(/<style|style=|<script|\son\w+=|javascript:|https?:\/\/[^"]*\.css/i);
}

const WORDS = {
  en: {
    rows: { Connection: "Internet ••••hapa", Package: "Fiber 25 Mbps", Period: "monthly" },
    toPay: "To pay",
    price: "Price",
    amount: "NPR 1,250.00",
    back: "Back to Telegram",
  },
  ne: {
    rows: { जडान: "इन्टरनेट ••••hapa", प्याकेज: "Fiber 25 Mbps", अवधि: "मासिक" },
    toPay: "तिर्नुपर्ने रकम",
    price: "मूल्य",
    amount: "नेरू १,२५०.००",
    back: "Telegram मा फर्कनुहोस्",
  },
} as const;

describe("the payment pages", () => {
  for (const language of ["en", "ne"] as const) {
    const words = WORDS[language];

    it(`eSewa's pay page in ${language}: the amount large, the package and period in words, one Pay, the way back`, async () => {
      const open = site(purchaseIn(language));
      const { status, html } = await open(`/pay/esewa/${UUID}`);
      expect(status).toBe(200);
      expect(html).toMatch(new RegExp(`^<!doctype html><html lang="${language}">`));
      expect(textOf(html, "amount-label")).toBe(words.toPay);
      expect(textOf(html, "amount-value")).toBe(words.amount);
      expect(rowsOf(html)).toEqual(words.rows);
      // The provider's name, never its period marker; the connection masked as the invoice.
      expect(html).not.toContain("MONTHLY");
      expect(html).not.toContain("fiber.ram.thapa");
      expect(html).toMatch(
        /<button type="submit" class="button button-pay">[^<]+<\/button><\/form>/,
      );
      expect(html).toContain(`<a class="button button-quiet" href="${CHAT}">${words.back}</a>`);
      expect(html).toContain('<body class="method-esewa">');
      expectOnlyTheStylesheet(html);
    });

    it(`Khalti's and eSewa's return pages in ${language}: the news, what was bought, Back to Telegram`, async () => {
      const purchase = purchaseIn(language, "paid");
      for (const path of [`/pay/khalti/return?pidx=${PIDX}`, `/pay/esewa/failure/${UUID}`]) {
        const { status, html } = await site(purchase, "paid")(path);
        expect(status).toBe(200);
        expect(html).toMatch(new RegExp(`^<!doctype html><html lang="${language}">`));
        expect(textOf(html, "status tone-ok")).toMatch(/^✅/);
        expect(textOf(html, "amount-label")).toBe(words.price);
        expect(textOf(html, "amount-value")).toBe(words.amount);
        expect(rowsOf(html)).toEqual(words.rows);
        expect(html).toContain(
          `<a class="button button-telegram" href="${CHAT}">${words.back}</a>`,
        );
        expect(html).not.toContain("<form");
        expectOnlyTheStylesheet(html);
      }
    });
  }

  it("the news is coloured by what the check found; every outcome's page is styled only by the stylesheet", async () => {
    const tones: Record<string, string[]> = {};
    for (const outcome of OUTCOMES) {
      for (const language of ["en", "ne"]) {
        const { html } = await site(
          purchaseIn(language, "unpaid"),
          outcome,
        )(`/pay/khalti/return?pidx=${PIDX}`);
        const tone = /class="status tone-(\w+)"/.exec(html)?.[1] ?? "none";
        tones[tone] = [...new Set([...(tones[tone] ?? []), outcome])];
        expectOnlyTheStylesheet(html);
      }
    }
    expect(tones).toEqual({
      ok: ["paid"],
      wait: ["pending"],
      info: ["waiting", "window-over"],
      ended: ["ended"],
      warn: ["refund", "unknown", "not-found", "checking"],
    });
  });

  it("an unknown language reads English, and says so in <html lang>", async () => {
    const { html } = await site(purchaseIn("fr"))(`/pay/esewa/${UUID}`);
    expect(html).toMatch(/^<!doctype html><html lang="en">/);
    expect(textOf(html, "amount-value")).toBe("NPR 1,250.00");
  });

  it('the ledger away: 503 and "we could not check" in both languages, never "not found"', async () => {
    const open = site(purchaseIn("ne"), "paid", true);
    for (const path of [
      `/pay/khalti/return?pidx=${PIDX}`,
      `/pay/esewa/${UUID}`,
      `/pay/esewa/failure/${UUID}`,
    ]) {
      const { status, html } = await open(path);
      expect(status, path).toBe(503);
      expect(html).toMatch(/We could not check your payment/);
      expect(html).toMatch(/<section class="other" lang="ne">/);
      expect(html).not.toMatch(/not found|not known|Nothing was charged|Payment received/);
      expectOnlyTheStylesheet(html);
    }
  });

  it("pages that name no purchase: English and Nepali both, each marked with its language", async () => {
    const open = site(purchaseIn("ne"));
    const pages = [
      { path: "/pay/khalti/return?pidx=unknown", status: 404, ne: "भुक्तानी फेला परेन" },
      { path: "/pay/esewa/unknown-1", status: 404, ne: "भुक्तानी फेला परेन" },
      { path: "/pay/esewa/failure/unknown-1", status: 404, ne: "भुक्तानी फेला परेन" },
      { path: "/pay/esewa/success?data=forged", status: 400, ne: "प्रमाणित" },
    ];
    for (const expected of pages) {
      const { status, html } = await open(expected.path);
      expect(status).toBe(expected.status);
      expect(html).toMatch(/^<!doctype html><html lang="en">/);
      expect(html).toMatch(/<h1>Payment (not found|answer not verified)<\/h1>/);
      const nepali = /<section class="other" lang="ne"><h2>(.*?)<\/h2>/.exec(html)?.[1];
      expect(nepali).toContain(expected.ne);
      expect(html).toContain(
        `<a class="button button-telegram" href="${CHAT}"><span lang="en">Back to Telegram</span><span lang="ne">Telegram मा फर्कनुहोस्</span></a>`,
      );
      // Nothing of anyone's purchase.
      expect(html).not.toMatch(/Fiber|amount-value|<dl/);
      expectOnlyTheStylesheet(html);
    }
  });

  it("the stylesheet: no fonts or anything else from elsewhere, Devanagari fonts, light and dark", () => {
    const { css, path } = PAGE_STYLESHEET;
    expect(STYLESHEET_HREF).toMatch(new RegExp(`^${path}\\?v=[0-9a-f]{12}$`));
    expect(css).not.toMatch(/@import|@font-face|url\(/);
    expect(css).toContain("@media (prefers-color-scheme: dark)");
    expect(css).toContain('"Noto Sans Devanagari"');
    // Large tap targets: every button at least 48 px high.
    expect(css).toMatch(/\.button \{[^}]*min-height: 3\.25rem/);
  });
});
