import { describe, expect, it } from "vitest";
import { refundsView } from "../../src/bot/features/payments/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import type { Translate } from "../../src/bot/shared/labels.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { Refund } from "../../src/domain/payment.js";

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
