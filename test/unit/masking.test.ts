import { describe, expect, it } from "vitest";
import { maskedId, maskedName } from "../../src/bot/shared/masking.js";

describe("a customer found by a typed code, as shown", () => {
  it("is named by the first letter of each name", () => {
    expect(maskedName("Ram", "Thapa")).toBe("R••• T•••");
    expect(maskedName(" Seán ", "O'Brien <Ltd> & Sons")).toBe("S••• O•••");
    expect(maskedName("Ram", "")).toBe("R•••");
    expect(maskedName("", "  ")).toBe("•••");
    // Whole characters, not halves of one.
    expect(maskedName("𝒜nil", "Ṡhrestha")).toBe("𝒜••• Ṡ•••");
  });

  it("has connections told apart by the last four characters of their ids", () => {
    expect(maskedId("8000000011")).toBe("••••0011");
    expect(maskedId("gita.karki")).toBe("••••arki");
  });

  it("never shows more than half of a short id", () => {
    expect(maskedId("12345")).toBe("••••45");
    expect(maskedId("ab")).toBe("••••b");
    expect(maskedId("a")).toBe("••••");
    expect(maskedId("")).toBe("••••");
  });
});
