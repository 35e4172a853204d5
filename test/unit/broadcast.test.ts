import { describe, expect, it } from "vitest";
import { planGroups, plansText } from "../../src/bot/features/broadcast/views.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import { parseBouquetName } from "../../src/domain/bouquet-name.js";
import { countProgress, type RecipientState } from "../../src/domain/broadcast.js";
import type { Bouquet } from "../../src/domain/model.js";

const bouquet = (code: string, name: string, price: string): Bouquet => ({
  code,
  name,
  price,
  ...parseBouquetName(name),
});
const t = (key: string, variables?: Record<string, string | number>) =>
  `${key}${variables ? JSON.stringify(variables) : ""}`;

describe("broadcast progress", () => {
  it("counts states, a crash-time claim as failed, and what is left", () => {
    const progress = new Map<number, RecipientState>([
      [1, "sent"],
      [2, "sent"],
      [3, "blocked"],
      [4, "failed"],
      [5, "claimed"],
    ]);
    expect(countProgress(9, progress)).toEqual({
      total: 9,
      sent: 2,
      failed: 2,
      blocked: 1,
      remaining: 4,
    });
  });
});

describe("plan information", () => {
  const bouquets = [
    bouquet("Y", "Gold (YEARLY)", "7700"),
    bouquet("M", "Gold (MONTHLY)", "700"),
    bouquet("A", "Sports <HD> & more [AddOn] (MONTHLY)", "250"),
  ];

  it("groups by period in a fixed order, add-ons apart", () => {
    expect(planGroups(bouquets)).toEqual([
      { filter: "monthly", items: [{ name: "Gold", price: "700" }] },
      { filter: "yearly", items: [{ name: "Gold", price: "7700" }] },
      { filter: "addon", items: [{ name: "Sports <HD> & more", price: "250" }] },
    ]);
  });

  it("escapes names and stays under Telegram's limit", () => {
    const fmt = new ValueFormatter("en", "UTC", undefined);
    expect(plansText("tv", planGroups(bouquets), t, fmt)).toContain("Sports &lt;HD&gt; &amp; more");
    const many = Array.from({ length: 400 }, (_, i) =>
      bouquet(`B${i}`, `Bouquet number ${i} with a long name (MONTHLY)`, String(100 + i)),
    );
    const text = plansText("tv", planGroups(many), t, fmt);
    expect(text.length).toBeLessThanOrEqual(4_000);
    expect(text.endsWith("plans-footer")).toBe(true);
  });
});
