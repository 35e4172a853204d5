import type { Api } from "grammy";
import { describe, expect, it } from "vitest";
import { TelegramReminders } from "../../src/bot/features/reminders/delivery.js";
import { savedView } from "../../src/bot/features/topup/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import {
  maskedId,
  maskedIds,
  maskedName,
  shownCustomerName,
  shownId,
  shownIds,
  shownName,
} from "../../src/bot/shared/masking.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { Reminder } from "../../src/domain/reminders.js";
import { type SavedConnection, withRemembered } from "../../src/domain/saved-connections.js";

describe("a customer found by a typed code, as shown", () => {
  it("is named by the first letter of each name", () => {
    expect(maskedName("Ram", "Thapa")).toBe("R••• T•••");
    expect(maskedName(" Seán ", "O'Brien <Ltd> & Sons")).toBe("S••• O•••");
    expect(maskedName("Ram", "")).toBe("R•••");
    expect(maskedName("", "  ")).toBe("•••");
    // Whole characters, not halves of one.
    expect(maskedName("𝒜nil", "Ṡhrestha")).toBe("𝒜••• Ṡ•••");
  });

  it("is named in full only as far as the first name and the last name's initial, when proved", () => {
    const ram = { firstName: " Ram ", lastName: "Thapa" };
    expect(shownCustomerName(ram, true)).toBe("Ram T.");
    expect(shownCustomerName(ram, false)).toBe("R••• T•••");
    expect(shownCustomerName({ firstName: "Ram", lastName: "" }, true)).toBe("Ram");
    expect(shownCustomerName({ firstName: "Seán", lastName: "O'Brien <Ltd>" }, true)).toBe(
      "Seán O.",
    );
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

describe("the one rule: proved in full, typed masked", () => {
  it("shows an id, a list and a name in full only when proved; absent is typed", () => {
    expect(shownId("8000000011", true)).toBe("8000000011");
    expect(shownId("8000000011", false)).toBe("••••0011");
    expect(shownId("8000000011", undefined)).toBe("••••0011");
    expect(shownIds(["8000000011", "9000000011"], true)).toEqual(["8000000011", "9000000011"]);
    expect(shownIds(["8000000011", "9000000011"], false)).toEqual(["••••00011 #1", "••••00011 #2"]);
    expect(shownName("Sita S.", true)).toBe("Sita S.");
    expect(shownName("Sita S.", false)).toBe("S••• S•••");
    expect(shownName("Ram Bahadur T.", undefined)).toBe("R••• T•••");
    expect(shownName("Gita", false)).toBe("G•••");
  });
});

describe("saved connections", () => {
  const i18n = new Translator();
  const t = (key: string, variables?: Record<string, string | number>) =>
    i18n.t("en", key, variables);
  const sita: SavedConnection = {
    customerName: "Sita S.",
    service: "tv",
    connectionId: "8000000021",
    proved: true,
  };
  const typed: SavedConnection = {
    customerName: "Ram T.",
    service: "tv",
    connectionId: "8000000011",
  };
  const labels = (saved: SavedConnection[]) =>
    savedView(saved, t).keyboard.inline_keyboard.map((row) => row[0]?.text);

  it("list one proved in full and one typed masked, an older one (no provenance) masked too", () => {
    const older = JSON.parse(
      '{"customerName":"Hari G.","service":"internet","connectionId":"hari.gurung"}',
    ) as SavedConnection;
    expect(labels([sita, typed, older]).slice(0, 3)).toEqual([
      "Sita S. · TV 8000000021",
      "R••• T••• · TV ••••0011",
      "H••• G••• · Internet ••••rung",
    ]);
    // Two typed ids that would read the same are told apart, as in any masked list.
    const twin = { ...typed, connectionId: "9000000011" };
    expect(labels([typed, twin]).slice(0, 2)).toEqual([
      "R••• T••• · TV ••••00011 #1",
      "R••• T••• · TV ••••00011 #2",
    ]);
  });

  it("stay proved once proved: the same connection typed later is still the buyer's own", () => {
    const again = withRemembered([sita, typed], { ...sita, proved: undefined });
    expect(again[0]).toEqual(sita);
    const first = withRemembered([typed], { ...typed, proved: true });
    expect(first).toEqual([{ ...typed, proved: true }]);
    expect(withRemembered([sita], typed)).toEqual([typed, sita]);
  });
});

describe("an expiry reminder", () => {
  it("names its connection by the same rule: in full only when proved", async () => {
    const texts: string[] = [];
    const api = {
      sendMessage: async (_chat: number, text: string) => {
        texts.push(text);
        return { message_id: 1 };
      },
    } as unknown as Api;
    const reminders = new TelegramReminders(
      api,
      new Translator(),
      (locale) => new ValueFormatter(locale, "UTC", "NPR"),
      () => "t:z:r1",
    );
    const reminder: Reminder = {
      id: "r1",
      user: 5,
      language: "en",
      cuid: "1000002",
      connection: { service: "tv", id: "8000000021" },
      bouquet: { code: "G", name: "Gold (MONTHLY)" },
      end: Date.parse("2026-12-24T18:14:00Z"),
      daysBefore: 3,
      fireAt: 0,
    };
    await reminders.send({ ...reminder, proved: true }, null);
    await reminders.send(reminder, null);
    expect(texts[0]).toContain("(TV 8000000021)");
    expect(texts[1]).toContain("(TV ••••0021)");
    expect(texts[1]).not.toContain("8000000021");
  });
});
