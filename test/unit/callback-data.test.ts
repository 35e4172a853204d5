import { describe, expect, it } from "vitest";
import { broadcastButtons } from "../../src/bot/features/broadcast/callback-data.js";
import { refreshButtons } from "../../src/bot/features/support/callback-data.js";
import { type TopupButton, topupButtons } from "../../src/bot/features/topup/callback-data.js";
import type { MenuAction } from "../../src/bot/session.js";
import {
  callbackCodec,
  entryButtons,
  MAX_CALLBACK_BYTES,
} from "../../src/bot/shared/callback-data.js";

describe("the callback data scheme", () => {
  const pair = callbackCodec<[string, number]>(
    "x",
    ([name, index]) => [name, index],
    ([name, index, ...rest]) =>
      name !== undefined && index !== undefined && rest.length === 0 ? [name, Number(index)] : null,
  );

  it("joins a feature prefix and parts, and splits them back", () => {
    expect(pair.encode(["abc", 7])).toBe("x:abc:7");
    expect(pair.decode("x:abc:7")).toEqual(["abc", 7]);
    expect(pair.filter.test("x:abc:7")).toBe(true);
    expect(pair.filter.test("xy:abc:7")).toBe(false);
  });

  it("refuses parts outside [A-Za-z0-9_-] and data over 64 bytes", () => {
    expect(() => pair.encode(["a b", 1])).toThrow(RangeError);
    expect(() => pair.encode(["ä", 1])).toThrow(RangeError);
    expect(() => pair.encode(["x".repeat(MAX_CALLBACK_BYTES), 1])).toThrow(RangeError);
    expect(pair.decode("x:a b:1")).toBeNull();
    expect(pair.decode("x::1")).toBeNull();
    expect(pair.decode("y:abc:1")).toBeNull();
  });

  it("has one shared entry button", () => {
    expect(entryButtons.decode(entryButtons.encode("topup"))).toBe("topup");
    expect(entryButtons.decode("go:topup:x")).toBeNull();
  });
});

describe("top-up buttons", () => {
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
    { op: "remind", subscription: 2 },
  ];
  const buttons: TopupButton[] = [
    ...actions.map((action): TopupButton => ({ kind: "menu", journeyId: "a1b2c3d4e5", action })),
    { kind: "connection", journeyId: "a1b2c3d4e5", index: 2 },
    { kind: "another" },
    { kind: "done" },
    { kind: "retry", reference: "tg-1001234567890-lz3k9abc1" },
    { kind: "saved", index: 4 },
    { kind: "someone-else" },
    { kind: "forget" },
    { kind: "remind-receipt", reference: "tg-1001234567890-lz3k9abc1" },
    { kind: "renew-reminder", id: "a1b2c3d4e5" },
  ];

  it.each(buttons)("round-trips %j within 64 bytes", (button) => {
    const data = topupButtons.encode(button);
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(MAX_CALLBACK_BYTES);
    expect(topupButtons.decode(data)).toEqual(button);
  });

  it.each([
    "t:o",
    "t:q:abc",
    "t:z:ABC!",
    "t:l:abc:z:1",
    "t:b:abc:-1",
    "t:o:ABC",
    "x:o:abc",
    "t:o:abc:extra",
    "t:b:abc:12345",
    "t:k:abc",
    "t:a:x",
    `t:r:${"x".repeat(31)}`,
    "",
  ])("refuses forged data %j", (data) => {
    expect(topupButtons.decode(data)).toBeNull();
  });
});

describe("support and broadcast buttons", () => {
  it("round-trips refresh ids and refuses forged ones", () => {
    const id = "AbC-dEf_123456";
    expect(refreshButtons.decode(refreshButtons.encode(id))).toBe(id);
    for (const data of ["su:r:", "su:r:short", "su:r:abcdefghijkl:extra", "su:x:abcdefghijkl"]) {
      expect(refreshButtons.decode(data)).toBeNull();
    }
    expect(refreshButtons.decode(`su:r:${"a".repeat(25)}`)).toBeNull();
  });

  it("round-trips the broadcast conversation's buttons and the unsubscribe button", () => {
    for (const button of [
      { kind: "audience", token: "abc123", audience: "internet" },
      { kind: "send", token: "abc123" },
      { kind: "abort", token: "abc123" },
      { kind: "unsubscribe" },
    ] as const) {
      expect(broadcastButtons.decode(broadcastButtons.encode(button))).toEqual(button);
    }
    expect(broadcastButtons.decode("bc:stop:x")).toBeNull();
    expect(broadcastButtons.decode("bc:go")).toBeNull();
    expect(broadcastButtons.decode("bc:a:abc")).toBeNull();
  });
});
