// The error boundary's words: a buyer whose payment confirmation failed has paid, and hears that
// it is being processed in their language, never "nothing was charged"; others as before.
import type { BotError } from "grammy";
import { describe, expect, it } from "vitest";
import type { BotContext } from "../../src/bot/context.js";
import { errorBoundary } from "../../src/bot/shared/error-boundary.js";
import { Translator } from "../../src/bot/shared/i18n.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const i18n = new Translator();

/** What the boundary said in a private chat for an update with this message. */
async function saidFor(message: Record<string, unknown>, language_code = "en") {
  const said: string[] = [];
  const ctx = {
    update: { update_id: 1 },
    chat: { id: 5, type: "private" },
    from: { id: 5, language_code },
    message,
    msg: message,
    // No session: the update failed before the gate, or the gate failed.
    get session(): never {
      throw new Error("no session");
    },
    reply: async (text: string) => {
      said.push(text);
    },
  } as unknown as BotContext;
  const boundary = errorBoundary({
    i18n,
    log: quiet,
    isSupportGroup: () => false,
    isStoreFailure: () => true,
  });
  await boundary({ error: new Error("store down"), ctx } as BotError<BotContext>);
  return said;
}

describe("errorBoundary", () => {
  it("tells a buyer whose confirmation failed that it is being processed, in their language", async () => {
    const paid = { message_id: 1, successful_payment: { total_amount: 70_000 } };
    expect(await saidFor(paid)).toEqual([i18n.t("en", "payment-processing")]);
    expect(await saidFor(paid, "ne")).toEqual([i18n.t("ne", "payment-processing")]);
    expect((await saidFor(paid)).join()).not.toMatch(/nothing was charged/i);
  });

  it("still says nothing was charged for any other update while the store is down", async () => {
    expect(await saidFor({ message_id: 2, text: "hello" })).toEqual([
      i18n.t("en", "store-unavailable"),
    ]);
  });
});
