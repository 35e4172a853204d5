import { describe, expect, it } from "vitest";
import { refundsView, setAsideView } from "../../src/bot/features/payments/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import type { Translate } from "../../src/bot/shared/labels.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { Refund, SetAside } from "../../src/domain/payment.js";

const i18n = new Translator();
const en: Translate = (key, variables) => i18n.t("en", key, variables);
const fmt = new ValueFormatter("en", "UTC", "NPR");
const now = Date.parse("2026-11-22T08:00:00Z");

const refund = (overrides: Partial<Refund>): Refund => ({
  paymentId: "1",
  purchaseId: "p-1",
  buyer: 5,
  language: "en",
  method: "telegram",
  currency: "NPR",
  minor: 70_000,
  chargeId: "tg-charge-1",
  providerChargeId: "pi_1",
  receivedAt: now - 7_200_000,
  dueSince: now - 7_200_000,
  attempts: 0,
  ...overrides,
});

describe("/refunds", () => {
  it("names each payment's method and the reference to refund it by", () => {
    const text = refundsView(
      [
        refund({}),
        refund({
          purchaseId: "p-2",
          method: "khalti",
          chargeId: "pidx-2",
          providerChargeId: "K-2",
        }),
        refund({ purchaseId: "p-3", method: "khalti", chargeId: "pidx-3", providerChargeId: null }),
      ],
      en,
      fmt,
      2,
      now,
    );
    const seconds = text.split("\n\n").map((entry) => entry.split("\n")[1]);
    expect(seconds.slice(1, 4)).toEqual([
      "Telegram Payments (card) · provider charge <code>pi_1</code>",
      "Khalti · Khalti transaction <code>K-2</code>",
      "Khalti · pidx <code>pidx-3</code>",
    ]);
  });
});

describe("/refunds says what a person needs to know", () => {
  it("that part went back outside the bot (refund the rest), and why the bot left one to a person", () => {
    const text = refundsView(
      [
        refund({
          purchaseId: "p-4",
          method: "esewa",
          chargeId: "uuid-4",
          providerChargeId: "REF4",
          refundedOutside: { at: now, minor: null },
        }),
        refund({
          purchaseId: "p-5",
          method: "khalti",
          chargeId: "pidx-5",
          providerChargeId: "K-5",
          byHand: "needs-mobile",
        }),
      ],
      en,
      fmt,
      2,
      now,
    );
    const [, part, mobile] = text.split("\n\n");
    expect(part).toContain("eSewa · eSewa ref_id <code>REF4</code>");
    expect(part).toContain("Part of it was given back outside the bot");
    expect(part).toContain("refund the rest");
    expect(mobile).toContain("Khalti needs the payer's mobile number for a bank-paid refund");
    expect(text).toContain("/refunded &lt;any reference shown");
  });

  it("that a refund call is out with its answer lost: not to be refunded by hand meanwhile, in both languages", () => {
    const sent = [
      refund({ method: "khalti", chargeId: "pidx-7", providerChargeId: "K-7", sentAt: now }),
      refund({ purchaseId: "p-8", method: "khalti", chargeId: "pidx-8", providerChargeId: "K-8" }),
    ];
    const [, lost, plain] = refundsView(sent, en, fmt, 2, now).split("\n\n");
    expect(lost).toContain("A refund was sent to Khalti and its answer was lost");
    expect(lost).toContain("Do not refund it by hand meanwhile.");
    expect(plain).not.toContain("answer was lost");
    const ne: Translate = (key, variables) => i18n.t("ne", key, variables);
    const [, nepali] = refundsView(sent, ne, new ValueFormatter("ne", "UTC", "NPR"), 2, now).split(
      "\n\n",
    );
    expect(nepali).toContain("हातैले फिर्ता नगर्नुहोस्");
  });

  it("an offer still unsettled at its payment system, apart from the payments set aside", () => {
    const aside = (overrides: Partial<SetAside>): SetAside => ({
      kind: "payment",
      method: "esewa",
      purchaseId: "p-6",
      buyer: 6,
      currency: "NPR",
      amount: "700",
      chargeId: "uuid-6",
      providerChargeId: "REF6",
      reason: "eSewa's status check answered COMPLETE for 7.0 when asked about 700.00",
      setAsideAt: now - 3_600_000,
      ...overrides,
    });
    const text = setAsideView(
      [aside({}), aside({ kind: "unsettled", chargeId: "uuid-7", reason: "still PENDING" })],
      en,
      now,
    );
    const [, payment, unsettled] = text.split("\n\n");
    expect(payment).toContain("<code>uuid-6</code> (esewa): amount stated 700");
    expect(payment).toContain("COMPLETE for 7.0");
    expect(unsettled).toContain(
      "<code>uuid-7</code> (esewa): still unsettled at the payment system",
    );
    expect(unsettled).toContain("The bot keeps asking");
  });
});

describe("/refunds keeps apart what the bot is refunding through an API", () => {
  it("under a heading of its own, 'do not refund by hand', in both languages", () => {
    const ne: Translate = (key, variables) => i18n.t("ne", key, variables);
    const refunds = [
      refund({ purchaseId: "p-hand" }),
      refund({
        purchaseId: "p-api",
        method: "khalti",
        chargeId: "pidx-9",
        providerChargeId: "K-9",
      }),
    ];
    const automatic = (one: Refund) => one.method === "khalti";
    const text = refundsView(refunds, en, fmt, 2, now, automatic);
    const [byHand, apart] = text.split("🤖");
    expect(byHand).toContain("Refunds due: 1");
    expect(byHand).toContain("p-hand");
    expect(byHand).not.toContain("p-api");
    expect(apart).toContain("Being refunded automatically — do not refund by hand: 1");
    expect(apart).toContain("p-api");
    expect(apart).not.toContain("p-hand");
    expect(refundsView(refunds, ne, fmt, 2, now, automatic)).toContain("हातैले फिर्ता नगर्नुहोस्: १");
    const onlyApi = refundsView([refunds[1] as Refund], en, fmt, 2, now, automatic);
    expect(onlyApi).not.toContain("Refunds due");
    expect(onlyApi).toContain("Being refunded automatically");
  });
});
