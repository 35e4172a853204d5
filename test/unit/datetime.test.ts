import { describe, expect, it } from "vitest";
import { isValidTimeZone, parseProviderTime } from "../../src/adapters/provider/datetime.js";

const at = (value: unknown, zone = "UTC") => parseProviderTime(value, zone);
const iso = (value: unknown, zone = "UTC") => {
  const parsed = at(value, zone)?.at;
  return parsed == null ? parsed : new Date(parsed).toISOString();
};

describe("provider times", () => {
  it("reads the documented wall-clock time in the configured zone", () => {
    expect(iso("2024-01-31 23:59:59")).toBe("2024-01-31T23:59:59.000Z");
    // Kathmandu is UTC+05:45.
    expect(iso("2024-01-01 05:45:00", "Asia/Kathmandu")).toBe("2024-01-01T00:00:00.000Z");
  });

  it("reads ISO 8601 with an offset, with Z, and without a zone (then the configured one)", () => {
    expect(iso("2026-11-24T23:59:59+05:45", "UTC")).toBe("2026-11-24T18:14:59.000Z");
    expect(iso("2026-11-24T18:14:59Z", "Asia/Kathmandu")).toBe("2026-11-24T18:14:59.000Z");
    expect(iso("2026-11-24T23:59:59.500+05:45")).toBe("2026-11-24T18:14:59.500Z");
    expect(iso("2026-11-24T05:45:00", "Asia/Kathmandu")).toBe("2026-11-24T00:00:00.000Z");
  });

  it("reads a bare date as the start of that day, marked as a date only", () => {
    expect(at("2026-12-01", "Asia/Kathmandu")).toEqual({
      at: Date.parse("2026-11-30T18:15:00Z"),
      text: "2026-12-01",
      dateOnly: true,
    });
  });

  it("keeps what it cannot read as text, and takes no string as missing", () => {
    expect(at("next Tuesday")).toEqual({ at: null, text: "next Tuesday" });
    expect(at("2024-02-30 00:00:00")).toEqual({ at: null, text: "2024-02-30 00:00:00" });
    expect(at(undefined)).toBeNull();
    expect(at(1_700_000_000)).toBeNull();
    expect(at("  ")).toBeNull();
  });

  it("validates zone names", () => {
    expect(isValidTimeZone("Asia/Kathmandu")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus")).toBe(false);
  });
});
