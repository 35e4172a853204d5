import { describe, expect, it } from "vitest";
import type { Journey } from "../../src/bot/features/topup/journey.js";
import { listView } from "../../src/bot/features/topup/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import { bouquet, journeyWith } from "../support/journeys.js";

const i18n = new Translator();
const inLocale = (locale: "en" | "ne") => ({
  t: (key: string, variables?: Record<string, string | number>) => i18n.t(locale, key, variables),
  fmt: new ValueFormatter(locale, "Asia/Kathmandu", "NPR"),
});

const labels = (journey: Journey, locale: "en" | "ne") => {
  const { t, fmt } = inLocale(locale);
  return listView(journey, "monthly", 0, t, fmt)
    .keyboard.inline_keyboard.flat()
    .map((button) => button.text.replace(/\s/g, " ")); // Intl puts a no-break space after NPR
};

describe("bouquet buttons (drawn once per language and bouquet)", () => {
  it("are drawn again when the language, the price or the name changes", () => {
    const gold = bouquet("G", "Gold (MONTHLY)", "500");
    expect(labels(journeyWith([gold]), "en")[0]).toBe("Gold (monthly) · NPR 500.00");
    expect(labels(journeyWith([gold]), "ne")[0]).not.toBe("Gold (monthly) · NPR 500.00");

    const dearer = bouquet("G", "Gold (MONTHLY)", "550.5");
    expect(labels(journeyWith([dearer]), "en")[0]).toBe("Gold (monthly) · NPR 550.50");
    const renamed = bouquet("G", "Gold HD (MONTHLY)", "500");
    expect(labels(journeyWith([renamed]), "en")[0]).toBe("Gold HD (monthly) · NPR 500.00");
  });

  it("still read apart when two bouquets would read the same", () => {
    const twins = [bouquet("A1", "Twin (MONTHLY)", "100"), bouquet("B2", "Twin (MONTHLY)", "100")];
    const [first, second] = labels(journeyWith(twins), "en");
    expect(first).toBe("Twin (monthly) · NPR 100.00 · #A1");
    expect(second).toBe("Twin (monthly) · NPR 100.00 · #B2");
  });
});
