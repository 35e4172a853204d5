import { describe, expect, it } from "vitest";
import {
  CONNECTION_DATA,
  decodeMenu,
  encodeConnection,
  encodeMenu,
  encodeRetry,
  type MenuAction,
} from "../../src/bot/features/topup/callback-data.js";

describe("menu callback data", () => {
  const actions: MenuAction[] = [
    { op: "overview" },
    { op: "list", filter: "monthly", page: 0 },
    { op: "list", filter: "half-yearly", page: 12 },
    { op: "list", filter: "addon", page: 3 },
    { op: "list", filter: "other", page: 9999 },
    { op: "pick", bouquet: 61 },
    { op: "confirm" },
    { op: "cancel" },
    { op: "noop" },
  ];

  it.each(actions)("round-trips %j within 64 bytes", (action) => {
    const data = encodeMenu("a1b2c3d4e5", action);
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(decodeMenu(data)).toEqual({ journeyId: "a1b2c3d4e5", action });
  });

  it.each([
    "t:abc",
    "t:abc:z",
    "t:abc:l:z:1",
    "t:abc:b:-1",
    "t:ABC:o",
    "x:abc:o",
    "t:abc:o:extra",
    "t:abc:b:12345",
    "",
  ])("refuses forged data %j", (data) => {
    expect(decodeMenu(data)).toBeNull();
  });

  it("encodes connections and retries compactly", () => {
    expect(CONNECTION_DATA.exec(encodeConnection("abc", 2))?.slice(1)).toEqual(["abc", "2"]);
    expect(Buffer.byteLength(encodeRetry("tg-1001234567890-lz3k9abc1"))).toBeLessThanOrEqual(64);
    expect(() => encodeRetry("x".repeat(70))).toThrow(RangeError);
  });
});
