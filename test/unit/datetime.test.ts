import { describe, expect, it } from "vitest";
import {
  formatProviderDateTime,
  isValidTimeZone,
  parseProviderDateTime,
} from "../../src/adapters/provider/datetime.js";

describe("provider date and time", () => {
  it("reads the wall-clock time in the configured zone", () => {
    expect(parseProviderDateTime("2024-01-31 23:59:59", "UTC")?.toISOString()).toBe(
      "2024-01-31T23:59:59.000Z",
    );
    // Kathmandu is UTC+05:45.
    expect(parseProviderDateTime("2024-01-01 05:45:00", "Asia/Kathmandu")?.toISOString()).toBe(
      "2024-01-01T00:00:00.000Z",
    );
  });

  it("rejects anything that is not YYYY-MM-DD HH:MM:SS", () => {
    for (const bad of ["2024-02-30 00:00:00", "2024-01-01", "2024-01-01T00:00:00", "", "soon"]) {
      expect(parseProviderDateTime(bad, "UTC")).toBeNull();
    }
  });

  it("formats back to the provider's form", () => {
    const at = new Date("2024-06-01T00:00:00Z");
    expect(formatProviderDateTime(at, "Asia/Kathmandu")).toBe("2024-06-01 05:45:00");
  });

  it("validates zone names", () => {
    expect(isValidTimeZone("Asia/Kathmandu")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus")).toBe(false);
  });
});
