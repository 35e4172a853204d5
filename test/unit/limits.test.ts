import type { Transformer } from "grammy";
import { describe, expect, it } from "vitest";
import { TEXT_LIMIT, withinTelegramLimits } from "../../src/bot/shared/limits.js";

/** What the transformer hands on for one call. */
async function sent(method: string, payload: Record<string, unknown>) {
  let passed: Record<string, unknown> | undefined;
  const prev = (async (_m: string, p: unknown) => {
    passed = p as Record<string, unknown>;
    return { ok: true, result: true };
  }) as unknown as Parameters<Transformer>[0];
  await withinTelegramLimits(prev, method as "sendMessage", payload as never);
  return passed ?? {};
}

describe("Telegram's limits as a last line of defence", () => {
  it("passes HTML that is long in markup but short enough to read", async () => {
    const text = `<b>${"&amp;".repeat(1_000)}</b>`;
    expect(text.length).toBeGreaterThan(TEXT_LIMIT);
    expect(await sent("sendMessage", { chat_id: 1, text, parse_mode: "HTML" })).toEqual({
      chat_id: 1,
      text,
      parse_mode: "HTML",
    });
  });

  it("sends what is still too long as plain text, cut with an ellipsis", async () => {
    const text = `<b>Title</b>\n${"x &lt;y&gt; ".repeat(800)}`;
    const out = await sent("editMessageText", { chat_id: 1, text, parse_mode: "HTML" });
    expect(out.parse_mode).toBeUndefined();
    expect(String(out.text)).toHaveLength(TEXT_LIMIT);
    expect(String(out.text).startsWith("Title\nx <y> x <y>")).toBe(true);
    expect(String(out.text).endsWith("…")).toBe(true);
  });

  it("cuts captions at 1024 and leaves other methods alone", async () => {
    const caption = "c".repeat(2_000);
    expect(String((await sent("sendPhoto", { caption })).caption)).toHaveLength(1_024);
    expect(await sent("answerCallbackQuery", { text: "t".repeat(5_000) })).toEqual({
      text: "t".repeat(5_000),
    });
  });
});
