import { describe, expect, it } from "vitest";
import { paymentsText, summaryText } from "../../src/bot/features/report/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import type { Translate } from "../../src/bot/shared/labels.js";
import { TEXT_LIMIT } from "../../src/bot/shared/limits.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { PaymentMethod } from "../../src/domain/purchase.js";
import {
  type PaymentSummary,
  REPORT_OUTCOMES,
  type ReportOutcome,
  type ReportSummary,
  type Totals,
} from "../../src/domain/report.js";

const i18n = new Translator();
const totals = (count: number, sum: string) => ({ count, sum });
const DAY = { first: "2026-11-20", last: "2026-11-20" };
const en = (key: string, variables?: Record<string, string | number>) =>
  i18n.t("en", key, variables);

const outcomesOf = (each: (outcome: ReportOutcome) => Totals) =>
  Object.fromEntries(REPORT_OUTCOMES.map((outcome) => [outcome, each(outcome)])) as Record<
    ReportOutcome,
    Totals
  >;

function summaryOf(name: string, code: string): ReportSummary {
  const big = totals(9_999_999, "99999999999.999");
  return {
    outcomes: outcomesOf(() => big),
    services: { tv: big, internet: big, iptv: big },
    bouquets: Array.from({ length: 10 }, () => ({ code, name, ...big })),
    methods: [],
    open: big,
  };
}

const nothing = { count: 0, sums: [] };
const NO_PAYMENTS: PaymentSummary = {
  received: nothing,
  refundDue: nothing,
  refunded: nothing,
  refundsDueNow: nothing,
  unsettled: nothing,
  chargedUnpaid: totals(0, "0"),
};
const npr = (count: number, sum: string) => ({ count, sums: [{ currency: "NPR", sum }] });
/** As the report shows an amount in NPR ("NPR 1,400.00", a no-break space in it). */
const NPR = (amount: string) => new ValueFormatter("en", "UTC", "NPR").amount(amount);

/** The payments' part with every line, in two currencies at their largest. */
function widestPayments(t: Translate, fmt: ValueFormatter) {
  const big = {
    count: 9_999_999,
    sums: ["NPR", "USD"].map((currency) => ({ currency, sum: "99999999999.99" })),
  };
  return paymentsText(
    {
      received: big,
      refundDue: big,
      refunded: big,
      refundsDueNow: big,
      unsettled: big,
      chargedUnpaid: totals(9_999_999, "99999999999.999"),
    },
    3_600_000,
    t,
    fmt,
  );
}

describe("the report's message", () => {
  for (const locale of ["en", "ne"]) {
    it(`stays well under Telegram's limit at its longest, payments included (${locale})`, () => {
      const t = (key: string, variables?: Record<string, string | number>) =>
        i18n.t(locale, key, variables);
      const fmt = new ValueFormatter(locale, "Asia/Kathmandu", "NPR");
      const zone = "America/Argentina/ComodRivadavia";
      const text = summaryText(
        { first: "2025-11-01", last: "2026-10-31" },
        summaryOf("नेपाली च्यानल प्याक ".repeat(30), "X".repeat(200)),
        zone,
        t,
        fmt,
      );
      const payments = widestPayments(t, fmt);
      // Every line of every part at once, each at its widest, but the payment methods (with
      // them: below): about 2,800 characters.
      expect(`${text}\n\n${payments}`.length).toBeLessThan((TEXT_LIMIT * 3) / 4);
    });
  }

  it("escapes what the provider named, and shows the pending line only when there are some", () => {
    const summary = summaryOf("<b>Gold</b> & more", "A<B");
    const text = summaryText(DAY, summary, "UTC", en, new ValueFormatter("en", "UTC", undefined));
    expect(text).toContain("1. &lt;b&gt;Gold&lt;/b&gt; &amp; more (A&lt;B): 9,999,999 · ");
    expect(text).toContain("Not sent to the provider yet");
    const none = { ...summary, outcomes: { ...summary.outcomes, pending: totals(0, "0") } };
    expect(
      summaryText(DAY, none, "UTC", en, new ValueFormatter("en", "UTC", undefined)),
    ).not.toContain("Not sent to the provider yet");
  });

  it("shows the payment outcomes only when there are some, after the lines of old", () => {
    const fmt = new ValueFormatter("en", "UTC", "NPR");
    const lines = (counts: Partial<Record<ReportOutcome, Totals>>) =>
      summaryText(
        DAY,
        { ...summaryOf("Gold", "G"), outcomes: outcomesOf((o) => counts[o] ?? totals(0, "0")) },
        "UTC",
        en,
        fmt,
      )
        .split("\n\n")[1]
        ?.split("\n") ?? [];
    // Without payments in the bot: the four lines always shown, and nothing more.
    expect(lines({ charged: totals(1, "700") })).toEqual([
      `✅ Charged: 1 · ${NPR("700.00")}`,
      `⛔ Declined by the provider: 0 · ${NPR("0.00")}`,
      `↩️ Not charged, other reasons: 0 · ${NPR("0.00")}`,
      `❓ Still unknown: 0 · ${NPR("0.00")}`,
    ]);
    expect(
      lines({
        charged: totals(1, "700"),
        "awaiting-payment": totals(2, "1400"),
        unpaid: totals(1, "500"),
        "refund-due": totals(1, "700"),
        refunded: totals(3, "2100.5"),
      }).slice(4),
    ).toEqual([
      `🧾 Waiting for payment: 2 · ${NPR("1400.00")}`,
      `🚫 Not paid (cancelled or expired), nothing charged: 1 · ${NPR("500.00")}`,
      `💸 Paid, not topped up, refund due: 1 · ${NPR("700.00")}`,
      `💸 Paid, not topped up, refunded: 3 · ${NPR("2100.50")}`,
    ]);
  });
});

describe("the report's payment methods", () => {
  const fmt = new ValueFormatter("en", "UTC", "NPR");
  const methodLines = (summary: ReportSummary, t = en, format = fmt) => {
    const text = summaryText(DAY, summary, "UTC", t, format);
    const section = text.split("\n\n").find((part) => part.includes("by payment method"));
    return section?.split("\n");
  };
  const none = totals(0, "0");

  it("give each method a line: charged, and owed back and refunded when there are any", () => {
    const summary: ReportSummary = {
      ...summaryOf("Gold", "G"),
      methods: [
        {
          method: "khalti",
          outcomes: { charged: totals(3, "2100"), "refund-due": totals(1, "500"), refunded: none },
        },
        {
          method: "telegram",
          outcomes: { charged: none, "refund-due": none, refunded: totals(2, "1400.5") },
        },
        {
          method: null,
          outcomes: { charged: totals(4, "2800"), "refund-due": none, refunded: none },
        },
      ],
    };
    expect(methodLines(summary)).toEqual([
      "<b>Charged, owed back and refunded, by payment method</b>",
      `Khalti: ✅ 3 · ${NPR("2100.00")}; 💸 owed back 1 · ${NPR("500.00")}`,
      `Telegram Payments (card): ✅ 0 · ${NPR("0.00")}; 💸 refunded 2 · ${NPR("1400.50")}`,
      `No payment in the bot (agent): ✅ 4 · ${NPR("2800.00")}`,
    ]);
    const ne = (key: string, variables?: Record<string, string | number>) =>
      i18n.t("ne", key, variables);
    const nepali = methodLines(
      { ...summary, methods: summary.methods.slice(0, 1) },
      (key, variables) => (key === "report-by-method" ? en(key) : ne(key, variables)),
      new ValueFormatter("ne", "UTC", "NPR"),
    );
    expect(nepali?.[1]).toMatch(/^खल्ती: ✅ ३ · .+; 💸 फिर्ता बाँकी १ · /);
  });

  for (const locale of ["en", "ne"]) {
    it(`keep the message under Telegram's limit with every method at its widest (${locale})`, () => {
      const t = (key: string, variables?: Record<string, string | number>) =>
        i18n.t(locale, key, variables);
      const format = new ValueFormatter(locale, "Asia/Kathmandu", "NPR");
      const big = totals(9_999_999, "99999999999.999");
      // eSewa's method comes with its own branch (#31); its label is here already.
      const methods = (["telegram", "khalti", "esewa" as PaymentMethod, null] as const).map(
        (method) => ({ method, outcomes: { charged: big, "refund-due": big, refunded: big } }),
      );
      const zone = "America/Argentina/ComodRivadavia";
      const text = summaryText(
        { first: "2025-11-01", last: "2026-10-31" },
        { ...summaryOf("नेपाली च्यानल प्याक ".repeat(30), "X".repeat(200)), methods },
        zone,
        t,
        format,
      );
      // Four methods at their widest add about 650 characters to the 2,800 above: still an
      // eighth of the limit to spare.
      const message = `${text}\n\n${widestPayments(t, format)}`;
      expect(message.length).toBeLessThan((TEXT_LIMIT * 7) / 8);
    });
  }

  it("leave the section out when nothing was charged, owed back or refunded", () => {
    const text = summaryText(DAY, { ...summaryOf("Gold", "G"), methods: [] }, "UTC", en, fmt);
    expect(text).not.toContain("by payment method");
  });
});

describe("the report's payments", () => {
  const fmt = new ValueFormatter("en", "UTC", "NPR");

  it("say nothing when nobody paid, nothing is owed back and nothing is amiss (PAYMENT_MODE=none)", () => {
    expect(paymentsText(NO_PAYMENTS, 120_000, en, fmt)).toBeNull();
  });

  it("show what was received, owed back and refunded, and the refunds due of any day", () => {
    const text = paymentsText(
      {
        ...NO_PAYMENTS,
        received: npr(4, "2800.00"),
        refundDue: npr(1, "700.00"),
        refunded: npr(1, "700.00"),
        refundsDueNow: npr(2, "1400.00"),
      },
      120_000,
      en,
      fmt,
    );
    expect(text?.split("\n")).toEqual([
      "<b>💳 Payments in the bot, received on these days</b>",
      `Received: 4 · ${NPR("2800.00")}`,
      `Owed back, not refunded yet: 1 · ${NPR("700.00")}`,
      `Refunded: 1 · ${NPR("700.00")}`,
      `⏰ Refunds due right now (of any day): 2 · ${NPR("1400.00")}`,
    ]);
  });

  it("show a refund due of another day alone, and each mismatch only when there is one", () => {
    const owed = { ...NO_PAYMENTS, refundsDueNow: npr(1, "700.00") };
    expect(paymentsText(owed, 120_000, en, fmt)).toContain(
      `Received: 0 · ${NPR("0")}\nOwed back, not refunded yet: 0 · ${NPR("0.00")}`,
    );
    const amiss = paymentsText(
      { ...owed, unsettled: npr(1, "700.00"), chargedUnpaid: totals(1, "650.5") },
      120_000,
      en,
      fmt,
    );
    expect(amiss?.split("\n").slice(-2)).toEqual([
      `⚠️ Paid over 120 s ago, yet neither charged nor owed back: 1 · ${NPR("700.00")}`,
      `⚠️ Charged, but the payment it asked for is not recorded: 1 · ${NPR("650.50")}`,
    ]);
    // A charged purchase without its payment is reason enough to speak.
    expect(
      paymentsText({ ...NO_PAYMENTS, chargedUnpaid: totals(1, "700") }, 120_000, en, fmt),
    ).toContain(`⚠️ Charged, but the payment it asked for is not recorded: 1 · ${NPR("700.00")}`);
  });

  it("never adds two currencies: a sum for each, each in its own", () => {
    const text = paymentsText(
      {
        ...NO_PAYMENTS,
        received: {
          count: 3,
          sums: [
            { currency: "JPY", sum: "500" },
            { currency: "NPR", sum: "1400.00" },
          ],
        },
      },
      120_000,
      en,
      fmt,
    );
    const yen = new ValueFormatter("en", "UTC", "JPY").amount("500");
    expect(text).toContain(`Received: 3 · ${yen} + ${NPR("1400.00")}`);
  });

  it("speak Nepali", () => {
    const ne = (key: string, variables?: Record<string, string | number>) =>
      i18n.t("ne", key, variables);
    const text = paymentsText(
      { ...NO_PAYMENTS, received: npr(2, "1400.00"), unsettled: npr(1, "700.00") },
      120_000,
      ne,
      new ValueFormatter("ne", "Asia/Kathmandu", "NPR"),
    );
    expect(text).toContain("प्राप्त: २ · ");
    expect(text).toContain("⚠️ १२० सेकेन्डभन्दा पहिले तिरिएको");
  });
});
