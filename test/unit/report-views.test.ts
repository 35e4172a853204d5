import { describe, expect, it } from "vitest";
import { summaryText } from "../../src/bot/features/report/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import { TEXT_LIMIT } from "../../src/bot/shared/limits.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { ReportSummary } from "../../src/domain/report.js";

const i18n = new Translator();
const totals = (count: number, sum: string) => ({ count, sum });

function summaryOf(name: string, code: string): ReportSummary {
  const big = totals(9_999_999, "99999999999.999");
  return {
    outcomes: { charged: big, declined: big, "not-charged": big, unknown: big, pending: big },
    services: { tv: big, internet: big, iptv: big },
    bouquets: Array.from({ length: 10 }, () => ({ code, name, ...big })),
    open: big,
  };
}

describe("the report's message", () => {
  for (const locale of ["en", "ne"]) {
    it(`stays far under Telegram's limit at its longest (${locale})`, () => {
      const text = summaryText(
        { first: "2025-11-01", last: "2026-10-31" },
        summaryOf("नेपाली च्यानल प्याक ".repeat(30), "X".repeat(200)),
        "America/Argentina/ComodRivadavia",
        (key, variables) => i18n.t(locale, key, variables),
        new ValueFormatter(locale, "Asia/Kathmandu", "NPR"),
      );
      expect(text.length).toBeLessThan(TEXT_LIMIT / 2);
    });
  }

  it("escapes what the provider named, and shows the pending line only when there are some", () => {
    const summary = summaryOf("<b>Gold</b> & more", "A<B");
    const t = (key: string, variables?: Record<string, string | number>) =>
      i18n.t("en", key, variables);
    const text = summaryText(
      { first: "2026-11-20", last: "2026-11-20" },
      summary,
      "UTC",
      t,
      new ValueFormatter("en", "UTC", undefined),
    );
    expect(text).toContain("1. &lt;b&gt;Gold&lt;/b&gt; &amp; more (A&lt;B): 9,999,999 · ");
    expect(text).toContain("Not sent to the provider yet");
    const none = { ...summary, outcomes: { ...summary.outcomes, pending: totals(0, "0") } };
    expect(
      summaryText(
        { first: "2026-11-20", last: "2026-11-20" },
        none,
        "UTC",
        t,
        new ValueFormatter("en", "UTC", undefined),
      ),
    ).not.toContain("Not sent to the provider yet");
  });
});
