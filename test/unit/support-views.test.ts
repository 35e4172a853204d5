import { describe, expect, it } from "vitest";
import {
  CARD_BUDGET,
  customerCardText,
  purchaseOnlyText,
  RECENT_SHOWN,
  recentText,
  SUBSCRIPTIONS_SHOWN,
  transactionText,
} from "../../src/bot/features/support/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import type { Translate } from "../../src/bot/shared/labels.js";
import { TEXT_LIMIT } from "../../src/bot/shared/limits.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { CustomerDetails } from "../../src/domain/support.js";
import { purchaseOf } from "../support/purchases.js";

const i18n = new Translator();
const en: Translate = (key, variables) => i18n.t("en", key, variables);
const ne: Translate = (key, variables) => i18n.t("ne", key, variables);
const fmt = new ValueFormatter("en", "UTC", "NPR");
const now = Date.parse("2026-11-22T08:00:00Z");
const day = 86_400_000;

function customer(connections: number, subscriptions: number, name = "Gold"): CustomerDetails {
  return {
    customer: { cuid: "1000002", firstName: "Sita", lastName: "Sharma", status: "active" },
    connections: Array.from({ length: connections }, (_, c) => ({
      connection: {
        service: "tv" as const,
        id: `80000${String(c).padStart(5, "0")}`,
        status: "active",
      },
      subscriptions: Array.from({ length: subscriptions }, (_, s) => ({
        code: `C${s}`,
        name: `${name} ${s} (MONTHLY)`,
        end: { at: now + (s - 2) * day, text: "" },
      })),
    })),
  };
}

describe("the support customer card", () => {
  it("shows the full name, every connection and subscription with relative days", () => {
    const text = customerCardText(customer(2, 3), en, fmt, now);
    expect(text).toContain("<b>Sita Sharma</b>");
    expect(text).toContain("Customer 1000002 · active");
    expect(text).toContain("TV 8000000000 · active");
    expect(text).toContain("TV 8000000001 · active");
    expect(text).toContain("• Gold 0 – until 20 Nov 2026, 08:00 (UTC), expired 2 days ago");
    expect(text).toContain("• Gold 2 – until 22 Nov 2026, 08:00 (UTC), ends today");
    expect(text).not.toContain("MONTHLY");
    expect(text).not.toContain("more");
  });

  it("escapes provider text", () => {
    const details = customer(1, 1, "<b>Kids</b> & Co");
    details.customer.firstName = "Seán";
    details.customer.lastName = "O'Brien <Ltd> & Sons";
    const text = customerCardText(details, en, fmt, now);
    expect(text).toContain("<b>Seán O'Brien &lt;Ltd&gt; &amp; Sons</b>");
    expect(text).toContain("&lt;b&gt;Kids&lt;/b&gt; &amp; Co 0");
  });

  it("stays under Telegram's limit, counting what it leaves out", () => {
    const long = "Ultra Premium International Sports & Movies HD Bundle With Extras".repeat(3);
    for (const translate of [en, ne]) {
      const text = customerCardText(customer(60, 25, long), translate, fmt, now);
      expect(text.length).toBeLessThanOrEqual(CARD_BUDGET);
      expect(text.length).toBeLessThan(TEXT_LIMIT);
      const shownConnections = (text.match(/80000\d{5}/g) ?? []).length;
      expect(shownConnections).toBeGreaterThan(0);
      expect(shownConnections).toBeLessThan(60);
      // Every shown connection lists SUBSCRIPTIONS_SHOWN subscriptions and counts the rest.
      expect((text.match(/^• /gm) ?? []).length).toBe(shownConnections * SUBSCRIPTIONS_SHOWN);
      const hidden = translate("list-more", { count: 60 - shownConnections });
      expect(text).toContain(hidden);
      expect(text).toContain(translate("list-more", { count: 25 - SUBSCRIPTIONS_SHOWN }));
    }
  });

  it("says so when a connection's subscriptions could not be loaded, or there are none", () => {
    const details = customer(2, 0);
    (details.connections[0] as { subscriptions: null | [] }).subscriptions = null;
    const text = customerCardText(details, en, fmt, now);
    expect(text).toContain("could not be loaded");
    expect(text).toContain("No current subscriptions.");
    expect(customerCardText(customer(0, 0), en, fmt, now)).toContain("No connections.");
  });
});

describe("the latest top-ups", () => {
  const entry = (i: number) =>
    purchaseOf({
      id: `i${i}`,
      reference: `tg5-ref${i}`,
      bouquet: { code: "TV-GOLD-M", name: "Gold <HD> (MONTHLY)", price: "700" },
      createdAt: now,
      ...(i % 2 === 1 && { phase: "not-charged", reason: "verified", transaction: null }),
    });

  it("shows at most ten lines with state, amount, bouquet, connection, time and reference", () => {
    const text = recentText(
      Array.from({ length: 15 }, (_, i) => entry(i)),
      undefined,
      en,
      fmt,
    );
    const lines = text.split("\n");
    expect(lines).toHaveLength(RECENT_SHOWN + 1);
    expect(lines[1]).toBe(
      `✅ done · ${fmt.amount("700")} · Gold &lt;HD&gt; · TV 8000000011 · customer 1000001 · 22 Nov 2026, 08:00 (UTC) · <code>tg5-ref0</code> · No payment in the bot (agent)`,
    );
    expect(lines[2]).toContain("↩️ not charged");
    expect(text).not.toContain("Ram");
  });

  it("leaves out what a purchase not charged lacks: no empty field between the dots", () => {
    // An invoice never paid: no reference was ever taken, nothing charged.
    const unpaid = purchaseOf({
      phase: "unpaid",
      reason: "cancelled",
      reference: null,
      checkout: null,
      transaction: null,
      payment: { method: "telegram", currency: "NPR", minor: 70_000, expiresAt: now },
    });
    for (const translate of [en, ne]) {
      const [, line] = recentText([unpaid], undefined, translate, fmt).split("\n");
      expect(line).not.toMatch(/·\s*·|<code><\/code>|·\s*$/);
      expect(line).toMatch(/\(UTC\) · Telegram Payments \(card\)$|\(UTC\) · .+$/);
    }
    expect(recentText([unpaid], undefined, en, fmt)).toContain("(UTC) · Telegram Payments (card)");
    const block = purchaseOnlyText(unpaid, "not-found", en, fmt);
    expect(block).not.toContain("Reference:");
    expect(block).not.toContain("Checkout ID:");
    expect(block).not.toMatch(/: (<code><\/code>)?$/m);
    expect(block).toContain("Customer ID: 1000001");
  });

  it("says when there is nothing", () => {
    expect(recentText([], undefined, en, fmt)).toBe("No top-ups through the bot yet.");
    expect(recentText([], "<x>", en, fmt)).toContain("<code>&lt;x&gt;</code>");
  });
});

describe("the payment of a top-up, as support reads it", () => {
  const at = now;
  const paid = (method: "telegram" | "khalti", charge: { id: string; providerId: string | null }) =>
    purchaseOf({
      payment: {
        method,
        currency: "NPR",
        minor: 70_000,
        expiresAt: at + 900_000,
        offer: "offer-1",
        charge: { ...charge, at },
      },
    });
  const transaction = {
    txnId: "TXN1",
    orderId: "co1",
    cuid: "1000001",
    service: "tv",
    connectionId: "8000000011",
    bouquetCode: "TV-GOLD-M",
    amount: "700",
    date: { at, text: "2026-11-22 08:00:00" },
    status: "success",
  };

  it("names the method and its references in /txn, as the payment system calls them", () => {
    const khalti = paid("khalti", { id: "pidx<1>", providerId: "KHT-TXN-9" });
    expect(transactionText(transaction, khalti, en, fmt).split("\n").at(-1)).toBe(
      "Payment: Khalti · pidx <code>pidx&lt;1&gt;</code> · Khalti transaction <code>KHT-TXN-9</code>",
    );
    const card = paid("telegram", { id: "tg-charge-1", providerId: "pi_1" });
    expect(purchaseOnlyText(card, "not-found", en, fmt)).toContain(
      "Payment: Telegram Payments (card) · Telegram charge <code>tg-charge-1</code> · provider charge <code>pi_1</code>",
    );
    // Not paid yet: the method alone.
    const waiting = purchaseOf({
      phase: "awaiting-payment",
      transaction: null,
      payment: { method: "khalti", currency: "NPR", minor: 70_000, expiresAt: at, offer: "p" },
    });
    expect(purchaseOnlyText(waiting, "not-found", en, fmt)).toContain("Payment: Khalti\n");
    expect(recentText([khalti, card], undefined, en, fmt).split("\n").slice(1)).toEqual([
      expect.stringMatching(/ · Khalti$/),
      expect.stringMatching(/ · Telegram Payments \(card\)$/),
    ]);
  });

  it("leaves out what the provider did not say of a transaction, and a purchase's missing reference", () => {
    const bare = {
      ...transaction,
      orderId: null,
      cuid: null,
      bouquetCode: null,
      date: null,
      status: null,
    };
    const waiting = purchaseOf({ reference: null, phase: "requested", transaction: null });
    for (const translate of [en, ne]) {
      const text = transactionText(bare, waiting, translate, fmt);
      // No label without its value, no empty code, no dangling separator.
      expect(text).not.toMatch(/: (<code><\/code>)?$|·\s*$|<code><\/code>/m);
    }
    const text = transactionText(bare, waiting, en, fmt);
    expect(text).not.toContain("Order ID");
    expect(text).not.toContain("Customer ID");
    expect(text).not.toContain("Date:");
    expect(text).not.toContain("Provider status");
    expect(text).toContain("Package: Gold · TV-GOLD-M\n");
    expect(text).toContain("Through the bot: ⏳ pending\n");
    expect(transactionText(transaction, purchaseOf(), en, fmt)).toContain(
      "Through the bot: ✅ done · reference <code>tg5-ref1</code>",
    );
  });

  it("says plainly when nobody paid in the bot, in either language", () => {
    expect(transactionText(transaction, purchaseOf(), en, fmt)).toContain(
      "Payment: No payment in the bot (agent)",
    );
    expect(transactionText(transaction, purchaseOf(), ne, fmt)).toContain(
      "भुक्तानी: बोटमा भुक्तानी छैन (एजेन्ट)",
    );
    expect(transactionText(transaction, null, en, fmt)).not.toContain("Payment");
  });
});
