// A Telegram out of reach is said once, and once again when a call sent after the failure gets
// through: grammY's retries of a network error are silent otherwise. Driven through grammY's own
// Api and client, with a fetch of the test's own.
import { Api } from "grammy";
import { describe, expect, it } from "vitest";
import { configureApi } from "../../src/bot/shared/api.js";
import { TelegramReachability } from "../../src/bot/shared/reachability.js";
import type { Log } from "../../src/domain/ports.js";

const TOKEN = "123456:secret-token";

/** What the fake Telegram does with the calls that come next. */
type Telegram = "answers" | "is out of reach" | "answers with a page" | "never answers";

function setUp() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = Object.fromEntries(
    (["debug", "info", "warn", "error"] as const).map((level) => [
      level,
      (fields: Record<string, unknown>, message: string) => lines.push({ level, fields, message }),
    ]),
  ) as unknown as Log;
  let telegram: Telegram = "answers";
  /** Calls held until `release()`, answered as Telegram was when they were sent. */
  const held: (() => void)[] = [];
  let holding = false;
  const fetch = async (_url: string, init: RequestInit) => {
    const now = telegram;
    if (holding) await new Promise<void>((resolve) => held.push(resolve));
    if (now === "is out of reach") {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    }
    if (now === "never answers") {
      await new Promise((_, reject) =>
        init.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    }
    const page = now === "answers with a page";
    const json = async () => {
      if (page) throw new SyntaxError("Unexpected token '<'");
      return { ok: true, result: true };
    };
    return { ok: !page, status: page ? 404 : 200, json };
  };
  const reachability = new TelegramReachability(log);
  const api = configureApi(
    new Api(TOKEN, {
      apiRoot: "https://api.telegram.test",
      fetch: fetch as never,
      timeoutSeconds: 0.05,
    }),
    reachability,
  );
  return {
    lines,
    api,
    now: (state: Telegram) => {
      telegram = state;
    },
    hold: () => {
      holding = true;
    },
    /** Calls sent from now on are answered at once; those held wait for release(). */
    stopHolding: () => {
      holding = false;
    },
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
  };
}

describe("Telegram's reachability", () => {
  it("is said once when lost, once when a call sent after gets through; never the token", async () => {
    const t = setUp();
    await t.api.getMe();
    expect(t.lines).toEqual([]);
    t.now("is out of reach");
    await expect(t.api.getMe()).rejects.toThrow("Network request for 'getMe' failed");
    await expect(t.api.sendMessage(1, "x")).rejects.toThrow();
    expect(t.lines).toHaveLength(1);
    expect(t.lines[0]).toMatchObject({ level: "warn", fields: { method: "getMe" } });
    expect(t.lines[0]?.message).toContain("Telegram cannot be reached");

    t.now("answers");
    await t.api.sendMessage(1, "after");
    await t.api.getMe();
    expect(t.lines).toHaveLength(2);
    expect(t.lines[1]).toMatchObject({ level: "info", fields: { method: "sendMessage" } });
    expect(t.lines[1]?.message).toBe("Telegram can be reached again");
    expect(JSON.stringify(t.lines)).not.toContain(TOKEN);
  });

  it("a call sent before the failure and answered after it does not say Telegram is back", async () => {
    const t = setUp();
    t.hold();
    const sentBefore = t.api.sendMessage(1, "sent before");
    t.stopHolding();
    t.now("is out of reach");
    await expect(t.api.getMe()).rejects.toThrow();
    expect(t.lines.map((line) => line.level)).toEqual(["warn"]);
    t.now("answers");
    t.release();
    await sentBefore;
    expect(t.lines.map((line) => line.level)).toEqual(["warn"]);
    await t.api.getMe();
    expect(t.lines.map((line) => line.level)).toEqual(["warn", "info"]);
  });

  it("takes an answer that is not Telegram's JSON, and grammY's own timeout, for Telegram out of reach", async () => {
    const page = setUp();
    page.now("answers with a page");
    await expect(page.api.getMe()).rejects.toThrow();
    expect(page.lines.map((line) => line.level)).toEqual(["warn"]);

    const silent = setUp();
    silent.now("never answers");
    await expect(silent.api.getMe()).rejects.toThrow();
    expect(silent.lines.map((line) => line.level)).toEqual(["warn"]);
  });

  it("says nothing of a call its caller cut short (a stop ending the long poll)", async () => {
    const t = setUp();
    t.now("never answers");
    const stop = new AbortController();
    const signal = stop.signal as Parameters<typeof t.api.getUpdates>[1];
    const poll = t.api.getUpdates({ timeout: 30 }, signal).catch((error: unknown) => error);
    stop.abort();
    await poll;
    expect(t.lines).toEqual([]);
  });
});
