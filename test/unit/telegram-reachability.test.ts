// A Telegram out of reach is said once, and once again when it can be reached: grammY's retries
// of a network error are silent otherwise.
import { describe, expect, it } from "vitest";
import { reportingReachability } from "../../src/adapters/telegram-reachability.js";

const TOKEN = "123456:secret-token";
const url = (method: string) => `https://api.telegram.org/bot${TOKEN}/${method}`;

/** What the fake Telegram does with the next calls. */
type Telegram = "answers" | "is out of reach" | "answers with a page";

function setUp() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = Object.fromEntries(
    (["debug", "info", "warn", "error"] as const).map((level) => [
      level,
      (fields: Record<string, unknown>, message: string) => lines.push({ level, fields, message }),
    ]),
  ) as unknown as Parameters<typeof reportingReachability>[1];
  let telegram: Telegram = "answers";
  const fake = async () => {
    if (telegram === "is out of reach") {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    }
    const page = telegram === "answers with a page";
    const json = async () => {
      if (page) throw new SyntaxError("Unexpected token '<'");
      return { ok: true, result: [] };
    };
    return { ok: !page, status: page ? 404 : 200, json } as unknown as Response;
  };
  const fetch = reportingReachability(fake as unknown as typeof globalThis.fetch, log);
  const call = async (method: string, init: RequestInit = {}) => {
    const answer = await fetch(url(method), init);
    return answer.json();
  };
  const now = (state: Telegram) => {
    telegram = state;
  };
  return { lines, call, now };
}

describe("Telegram's reachability", () => {
  it("is said once when lost, once when back, naming the method and never the token", async () => {
    const t = setUp();
    await t.call("getMe");
    expect(t.lines).toEqual([]);
    t.now("is out of reach");
    await expect(t.call("getMe")).rejects.toThrow("ECONNREFUSED");
    await expect(t.call("sendMessage")).rejects.toThrow("ECONNREFUSED");
    expect(t.lines).toHaveLength(1);
    expect(t.lines[0]).toMatchObject({ level: "warn", fields: { method: "getMe" } });
    expect(t.lines[0]?.message).toContain("Telegram cannot be reached");
    t.now("answers");
    await t.call("getUpdates");
    await t.call("getUpdates");
    expect(t.lines).toHaveLength(2);
    expect(t.lines[1]).toMatchObject({ level: "info", fields: { method: "getUpdates" } });
    expect(t.lines[1]?.message).toBe("Telegram can be reached again");
    expect(JSON.stringify(t.lines)).not.toContain(TOKEN);
  });

  it("takes an answer that is not Telegram's JSON for Telegram out of reach", async () => {
    const t = setUp();
    t.now("answers with a page");
    await expect(t.call("getMe")).rejects.toThrow(SyntaxError);
    expect(t.lines).toHaveLength(1);
    expect(t.lines[0]?.level).toBe("warn");
  });

  it("says nothing of a call cut short by its own signal (a stop ending the long poll)", async () => {
    const t = setUp();
    const stop = new AbortController();
    stop.abort();
    t.now("is out of reach");
    await expect(t.call("getUpdates", { signal: stop.signal })).rejects.toThrow();
    expect(t.lines).toEqual([]);
    await expect(t.call("getUpdates")).rejects.toThrow();
    expect(t.lines).toHaveLength(1);
  });
});
