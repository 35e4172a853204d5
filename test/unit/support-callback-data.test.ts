import { describe, expect, it } from "vitest";
import {
  decodeRefresh,
  encodeRefresh,
  MAX_CALLBACK_BYTES,
} from "../../src/bot/features/support/callback-data.js";
import { newLookupRefId } from "../../src/domain/lookup-refs.js";

describe("support callback data", () => {
  it("round-trips fresh lookup ref ids within 64 bytes", () => {
    for (let i = 0; i < 50; i++) {
      const id = newLookupRefId();
      const data = encodeRefresh(id);
      expect(Buffer.byteLength(data, "utf8")).toBeLessThanOrEqual(MAX_CALLBACK_BYTES);
      expect(decodeRefresh(data)).toBe(id);
    }
  });

  it("refuses to encode something that is not a ref id", () => {
    expect(() => encodeRefresh("9851000002 & more")).toThrow(RangeError);
    expect(() => encodeRefresh("x".repeat(80))).toThrow(RangeError);
    expect(() => encodeRefresh("")).toThrow(RangeError);
  });

  it.each([
    "",
    "su:r:",
    "su:r:short",
    "su:r:has space1234",
    "su:r:abcdefghijkl:extra",
    `su:r:${"a".repeat(25)}`,
    "t:abcdefghijkl:o",
    "su:x:abcdefghijkl",
  ])("refuses forged data %j", (data) => {
    expect(decodeRefresh(data)).toBeNull();
  });
});
