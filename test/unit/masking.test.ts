import { describe, expect, it } from "vitest";
import { maskedId, maskedIds, maskedName } from "../../src/bot/shared/masking.js";

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

  it("in one list, ids that end the same keep one more character at a time, and only they", () => {
    expect(maskedIds(["8000000011", "8000010011", "8000000022"])).toEqual([
      "••••00011",
      "••••10011",
      "••••0022",
    ]);
    // A longer shared end: as many more as it takes, the others as they were.
    expect(maskedIds(["ABCDEFG0000011", "HIJKLMN1000011", "gita.karki"])).toEqual([
      "••••0000011",
      "••••1000011",
      "••••arki",
    ]);
    expect(maskedIds(["8000000011"])).toEqual([maskedId("8000000011")]);
    expect(maskedIds([])).toEqual([]);
  });

  it("in one list, never shows more than half of an id: those still alike are numbered", () => {
    expect(maskedIds(["1230000011", "4560000011", "7890000022"])).toEqual([
      "••••00011 #1",
      "••••00011 #2",
      "••••0022",
    ]);
    // Each id by its own half: the longer one may tell itself apart, the shorter may not.
    expect(maskedIds(["99990011", "1234567890011", "88880011"])).toEqual([
      "••••0011 #1",
      "••••90011",
      "••••0011 #2",
    ]);
    expect(maskedIds(["a", "b"])).toEqual(["•••• #1", "•••• #2"]);
  });
});
