import { describe, expect, it } from "vitest";
import { escapeHtml, truncate } from "../../src/bot/shared/html.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";

describe("value formatting", () => {
  it("formats money per locale, with the currency when configured", () => {
    expect(new ValueFormatter("en", "UTC", undefined).amount(1639.95)).toBe("1,639.95");
    expect(new ValueFormatter("en", "UTC", "NPR").amount(500)).toContain("500");
    expect(new ValueFormatter("en", "UTC", "NPR").amount(500)).toMatch(/NPR|Rs/);
    expect(new ValueFormatter("ne", "UTC", undefined).amount(565.5)).toBe("५६५.५");
  });

  it("counts calendar days in the provider's zone", () => {
    const fmt = new ValueFormatter("en", "Asia/Kathmandu", undefined);
    const now = Date.parse("2026-01-10T17:00:00Z"); // 22:45 in Kathmandu
    expect(fmt.daysUntil(Date.parse("2026-01-10T18:30:00Z"), now)).toBe(1); // 00:15 next day
    expect(fmt.daysUntil(Date.parse("2026-01-10T10:00:00Z"), now)).toBe(0);
    expect(fmt.daysUntil(Date.parse("2026-01-07T10:00:00Z"), now)).toBe(-3);
  });

  it("escapes provider text for HTML", () => {
    expect(escapeHtml("O'Brien <Ltd> & Sons")).toBe("O'Brien &lt;Ltd&gt; &amp; Sons");
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("abc", 4)).toBe("abc");
  });
});
