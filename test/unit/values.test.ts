import { describe, expect, it } from "vitest";
import { escapeHtml, truncate } from "../../src/bot/shared/html.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import { decimalsOf, isChargeable, parseAmount, sameAmount } from "../../src/domain/money.js";

const time = (iso: string) => ({ at: Date.parse(iso), text: iso });

describe("amounts", () => {
  it("are read exactly from numbers and numeric strings, never rounded", () => {
    expect(parseAmount(12.345)).toBe("12.345");
    expect(parseAmount("12.345")).toBe("12.345");
    expect(parseAmount(" 65.50 ")).toBe("65.50");
    expect(parseAmount("0700")).toBe("700");
    expect(parseAmount(700)).toBe("700");
    expect(decimalsOf("12.345")).toBe(3);
    expect(sameAmount("65.5", "65.50")).toBe(true);
    expect(sameAmount("65.5", "65.55")).toBe(false);
  });

  it("refuse what is not a plain non-negative decimal; zero is not chargeable", () => {
    for (const bad of [
      undefined,
      null,
      "",
      "12,5",
      "1e3",
      "abc",
      -5,
      "-5",
      Number.NaN,
      {},
      "12.",
    ]) {
      expect(parseAmount(bad)).toBeNull();
    }
    expect(isChargeable("0")).toBe(false);
    expect(isChargeable("0.00")).toBe(false);
    expect(isChargeable("0.01")).toBe(true);
  });

  it("show exactly what is charged: two decimals at least, every decimal they have", () => {
    const en = new ValueFormatter("en", "UTC", undefined);
    expect(en.amount("1639.95")).toBe("1,639.95");
    expect(en.amount("65.5")).toBe("65.50");
    expect(en.amount("700")).toBe("700.00");
    expect(en.amount("12.345")).toBe("12.345");
    expect(new ValueFormatter("en", "UTC", "NPR").amount("500")).toMatch(/(NPR|Rs).*500\.00/);
    expect(new ValueFormatter("ne", "UTC", undefined).amount("565.5")).toBe("५६५.५०");
  });

  it("say the currency and the locale's separators, signed, exact at any size (one formatter)", () => {
    const spaced = (text: string) => text.replace(/\u00a0/g, " ");
    const en = new ValueFormatter("en", "UTC", "NPR");
    const ne = new ValueFormatter("ne", "UTC", "NPR");
    // A balance counted in minor units, below zero: what /balance printed as "-2780.50".
    expect(spaced(en.minor(-278050n, 2))).toBe("-NPR 2,780.50");
    expect(spaced(ne.minor(-278050n, 2))).toBe("-नेरू २,७८०.५०");
    expect(spaced(ne.minor(123456750n, 2))).toBe("नेरू १२,३४,५६७.५०");
    expect(spaced(en.minor(0n, 2))).toBe("NPR 0.00");
    // Beyond a float's exactness, every digit kept.
    expect(spaced(en.amount("9007199254740993.07"))).toBe("NPR 9,007,199,254,740,993.07");
    // A sum in another currency, with that currency's name.
    expect(en.amount("500", "USD")).toMatch(/^US\$500\.00$/);
  });
});

describe("times", () => {
  it("count calendar days in the provider's zone", () => {
    const fmt = new ValueFormatter("en", "Asia/Kathmandu", undefined);
    const now = Date.parse("2026-01-10T17:00:00Z"); // 22:45 in Kathmandu
    expect(fmt.daysUntil(time("2026-01-10T18:30:00Z"), now)).toBe(1); // 00:15 next day
    expect(fmt.daysUntil(time("2026-01-10T10:00:00Z"), now)).toBe(0);
    expect(fmt.daysUntil(time("2026-01-07T10:00:00Z"), now)).toBe(-3);
    expect(fmt.daysUntil({ at: null, text: "soon" }, now)).toBeNull();
  });

  it("show a time nobody could read as sent, escaped, and a bare date without a time", () => {
    const fmt = new ValueFormatter("en", "UTC", undefined);
    expect(fmt.day({ at: null, text: "<31/12>" })).toBe("&lt;31/12&gt;");
    expect(fmt.moment({ at: null, text: "a & b" })).toBe("a &amp; b");
    expect(fmt.moment({ ...time("2026-12-01T00:00:00Z"), dateOnly: true })).toBe("1 Dec 2026");
    expect(fmt.moment(time("2026-12-01T10:30:00Z"))).toBe("1 Dec 2026, 10:30 (UTC)");
  });

  it("name the provider's zone beside a time unless it is the user's obvious one", () => {
    const at = time("2027-01-12T18:14:00Z"); // 23:59 in Kathmandu
    expect(new ValueFormatter("en", "Asia/Kathmandu", undefined).moment(at)).toBe(
      "12 Jan 2027, 23:59 (Asia/Kathmandu)",
    );
    expect(new ValueFormatter("ne", "Asia/Kathmandu", undefined).moment(at)).not.toContain("(");
    expect(new ValueFormatter("ne", "Asia/Dubai", undefined).moment(at)).toContain("(Asia/Dubai)");
    // A bare date has no time of day to place in a zone.
    expect(
      new ValueFormatter("en", "Asia/Kathmandu", undefined).moment({ ...at, dateOnly: true }),
    ).toBe("12 Jan 2027");
  });
});

describe("HTML", () => {
  it("escapes provider text and shortens labels", () => {
    expect(escapeHtml("O'Brien <Ltd> & Sons")).toBe("O'Brien &lt;Ltd&gt; &amp; Sons");
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("abc", 4)).toBe("abc");
  });
});
