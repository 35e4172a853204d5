import { describe, expect, it } from "vitest";
import { historyText } from "../../src/bot/features/history/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import type { Translate } from "../../src/bot/shared/labels.js";
import { TEXT_LIMIT } from "../../src/bot/shared/limits.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import { purchaseOf } from "../support/purchases.js";

const i18n = new Translator();
const en: Translate = (key, variables) => i18n.t("en", key, variables);
const ne: Translate = (key, variables) => i18n.t("ne", key, variables);
const fmt = new ValueFormatter("en", "UTC", "NPR");
const at = Date.parse("2026-11-22T08:00:00Z");

describe("/history's entries", () => {
  it("end with how each top-up was paid and the payment's reference", () => {
    const khalti = purchaseOf({
      id: "k",
      payment: {
        method: "khalti",
        currency: "NPR",
        minor: 70_000,
        expiresAt: at,
        offer: "pidx-1",
        charge: { id: "pidx-1", providerId: "KHT-9", at },
      },
    });
    const refunded = purchaseOf({
      id: "t",
      phase: "refunded",
      transaction: null,
      payment: {
        method: "telegram",
        currency: "NPR",
        minor: 70_000,
        expiresAt: at,
        charge: { id: "tg-1", providerId: null, at },
      },
    });
    const entries = historyText([khalti, refunded, purchaseOf()], en, fmt).split("\n\n");
    expect(entries.slice(1).map((entry) => entry.split("\n").at(-1))).toEqual([
      // The reference the receipt gave: the wallet's or card's when there is one.
      "Payment: Khalti · reference <code>KHT-9</code>",
      "Payment: Telegram Payments (card) · reference <code>tg-1</code>",
      "Payment: No payment in the bot (agent)",
    ]);
    expect(entries[2]).toContain("💸 Refunded");
  });

  it("stay within Telegram's limit, ten of them at their longest", () => {
    const long = purchaseOf({
      connection: { service: "internet", id: "x".repeat(200) },
      bouquet: { code: "C", name: "नेपाली ".repeat(40), price: "99999999999.999" },
      transaction: { txnId: "T".repeat(200), amount: "99999999999.999", date: null },
      payment: {
        method: "telegram",
        currency: "NPR",
        minor: 70_000,
        expiresAt: at,
        charge: { id: "c".repeat(300), providerId: "p".repeat(300), at },
      },
    });
    for (const t of [en, ne]) {
      const text = historyText(
        Array.from({ length: 20 }, () => long),
        t,
        fmt,
      );
      expect(text.length).toBeLessThan(TEXT_LIMIT);
    }
  });

  it("speak Nepali", () => {
    const text = historyText([purchaseOf()], ne, new ValueFormatter("ne", "UTC", "NPR"));
    expect(text).toContain("भुक्तानी: बोटमा भुक्तानी छैन (एजेन्ट)");
  });
});
