// What a buyer reads while a top-up is under way or after it, in both languages: where nobody
// paid in the bot (PAYMENT_MODE=none, an agent's top-up) no text speaks of a payment; a paid
// purchase waiting for top-ups to resume is told its payment is safe, never "nothing was charged".
import type { Api } from "grammy";
import { describe, expect, it } from "vitest";
import { TelegramOutcomes } from "../../src/bot/features/topup/outcomes.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { NotChargedReason, Purchase } from "../../src/domain/purchase.js";
import { isUntold } from "../../src/domain/purchase.js";
import { purchaseOf } from "../support/purchases.js";

const i18n = new Translator();
const at = Date.parse("2026-11-22T08:00:00Z");
const LANGUAGES = ["en", "ne"] as const;
/** Words of a payment, in English and in Nepali. */
const PAYMENT_WORDS = /payment|paid|भुक्तानी|तिर्/i;
const REASONS: NotChargedReason[] = [
  "declined",
  "verified",
  "unavailable",
  "paused",
  "interrupted",
  "offer-changed",
];

/** The text TelegramOutcomes sends for a purchase. */
async function told(purchase: Purchase): Promise<string> {
  let text = "";
  const api = {
    sendMessage: async (_chat: number, sent: string) => {
      text = sent;
      return { message_id: 1 };
    },
  } as unknown as Api;
  await new TelegramOutcomes(api, i18n, (locale) => new ValueFormatter(locale, "UTC", "NPR")).tell(
    purchase,
  );
  return text;
}

describe("an agent's top-up (nobody paid in the bot)", () => {
  it.each(LANGUAGES)("never speaks of a payment (%s)", async (language) => {
    const outcomes = [
      purchaseOf({ language, phase: "unknown", told: null, transaction: null }),
      ...REASONS.map((reason) =>
        purchaseOf({ language, phase: "not-charged", told: null, transaction: null, reason }),
      ),
    ];
    const texts = [
      ...(await Promise.all(outcomes.map(told))),
      i18n.t(language, "processing-topup"),
      i18n.t(language, "checking-topup"),
    ];
    expect(texts.filter((text) => text === "" || PAYMENT_WORDS.test(text))).toEqual([]);
  });
});

describe("a paid purchase waiting for the provider to take our token again", () => {
  const waiting = (language: string) =>
    purchaseOf({
      language,
      phase: "paid",
      told: null,
      transaction: null,
      reason: "paused",
      payment: {
        method: "telegram",
        currency: "NPR",
        minor: 70_000,
        expiresAt: at,
        charge: { id: "tg-1", providerId: "prov-1", at },
      },
    });

  it("is told once, at once", () => {
    expect(isUntold(waiting("en"))).toBe(true);
    expect(isUntold({ ...waiting("en"), told: "paid" })).toBe(false);
    // Retried later for another reason (the provider down): nothing new to tell.
    expect(isUntold({ ...waiting("en"), reason: "unavailable" })).toBe(false);
  });

  it.each(LANGUAGES)(
    "hears that its payment is safe, never that nothing was charged (%s)",
    async (language) => {
      const text = await told(waiting(language));
      expect(text).toMatch(language === "en" ? /Your payment is safe/ : /भुक्तानी सुरक्षित/);
      expect(text).not.toMatch(/Nothing was charged|कुनै रकम काटिएको छैन/);
    },
  );
});

describe("a purchase that ended unpaid, and one that no longer waits for its payment", () => {
  /** What TelegramOutcomes sends, and the Bot API calls it makes. */
  function recording() {
    const calls: { method: string; args: unknown[] }[] = [];
    const api = new Proxy(
      {},
      {
        get:
          (_target, method: string) =>
          async (...args: unknown[]) => {
            calls.push({ method, args });
            return { message_id: 1 };
          },
      },
    ) as Api;
    const outcomes = new TelegramOutcomes(
      api,
      i18n,
      (locale) => new ValueFormatter(locale, "UTC", "NPR"),
    );
    return { calls, outcomes };
  }
  const ended = (language: string, reason: "cancelled" | "expired") =>
    purchaseOf({ language, phase: "unpaid", told: null, transaction: null, reason });

  it.each(LANGUAGES)("offers Start again, a new /topup (%s)", async (language) => {
    for (const reason of ["cancelled", "expired"] as const) {
      const { calls, outcomes } = recording();
      await outcomes.tell(ended(language, reason));
      const options = calls[0]?.args[2] as { reply_markup?: { inline_keyboard: unknown[][] } };
      expect(options.reply_markup?.inline_keyboard.flat()).toEqual([
        { text: i18n.t(language, "button-start-again"), callback_data: "go:topup" },
      ]);
    }
  });

  it("takes the buttons off the menu that offered other ways to pay, and only that menu", async () => {
    const { calls, outcomes } = recording();
    await outcomes.closeMenu(purchaseOf({ menuMessage: "42" }));
    await outcomes.closeMenu(purchaseOf());
    expect(calls).toEqual([
      { method: "editMessageReplyMarkup", args: [5, 42, { reply_markup: undefined }] },
    ]);
  });
});
