import { describe, expect, it } from "vitest";
import type { Journey } from "../../src/bot/features/topup/journey.js";
import {
  confirmView,
  connectionChoice,
  connectionLine,
  listView,
  otherMethodsKeyboard,
  overviewView,
} from "../../src/bot/features/topup/views.js";
import { Translator } from "../../src/bot/shared/i18n.js";
import { ValueFormatter } from "../../src/bot/shared/values.js";
import type { Connection } from "../../src/domain/model.js";
import { bouquet, journeyWith } from "../support/journeys.js";

const i18n = new Translator();
const inLocale = (locale: "en" | "ne") => ({
  t: (key: string, variables?: Record<string, string | number>) => i18n.t(locale, key, variables),
  fmt: new ValueFormatter(locale, "Asia/Kathmandu", "NPR"),
});

const labels = (journey: Journey, locale: "en" | "ne") => {
  const { t, fmt } = inLocale(locale);
  return listView(journey, "monthly", 0, t, fmt)
    .keyboard.inline_keyboard.flat()
    .map((button) => button.text.replace(/\s/g, " ")); // Intl puts a no-break space after NPR
};

describe("bouquet buttons (drawn once per language and bouquet)", () => {
  it("are drawn again when the language, the price or the name changes", () => {
    const gold = bouquet("G", "Gold (MONTHLY)", "500");
    expect(labels(journeyWith([gold]), "en")[0]).toBe("Gold (monthly) · NPR 500.00");
    expect(labels(journeyWith([gold]), "ne")[0]).not.toBe("Gold (monthly) · NPR 500.00");

    const dearer = bouquet("G", "Gold (MONTHLY)", "550.5");
    expect(labels(journeyWith([dearer]), "en")[0]).toBe("Gold (monthly) · NPR 550.50");
    const renamed = bouquet("G", "Gold HD (MONTHLY)", "500");
    expect(labels(journeyWith([renamed]), "en")[0]).toBe("Gold HD (monthly) · NPR 500.00");
  });

  it("still read apart when two bouquets would read the same", () => {
    const twins = [bouquet("A1", "Twin (MONTHLY)", "100"), bouquet("B2", "Twin (MONTHLY)", "100")];
    const [first, second] = labels(journeyWith(twins), "en");
    expect(first).toBe("Twin (monthly) · NPR 100.00 · #A1");
    expect(second).toBe("Twin (monthly) · NPR 100.00 · #B2");
  });
});

describe("the journey of a customer found by a typed code (masked)", () => {
  const { t, fmt } = inLocale("en");
  const DAY = 86_400_000;
  const journey = (masked: boolean): Journey => ({
    ...journeyWith([bouquet("G", "Gold (MONTHLY)", "500")], [{ code: "G", end: 10 * DAY }]),
    customer: { cuid: "1000001", firstName: "Ram", lastName: "Thapa", status: "active" },
    connection: { service: "tv", id: "8000000011", status: "active" },
    masked,
  });
  const buttons = (view: { keyboard: { inline_keyboard: { text: string }[][] } }) =>
    view.keyboard.inline_keyboard.flat().map((b) => b.text);

  it("shows initials, the end of the connection id, and no customer id or end date", () => {
    const overview = overviewView(journey(true), t, fmt, 0);
    expect(overview.text).toContain("R••• T•••");
    expect(overview.text).toContain("TV ••••0011");
    expect(overview.text).toContain("• G");
    for (const hidden of ["Ram", "Thapa", "1000001", "8000000011", "until"]) {
      expect(overview.text).not.toContain(hidden);
    }
    expect(buttons(overview).some((b) => b.includes("Remind"))).toBe(false);
    const confirm = confirmView(journey(true), 0, { op: "overview" }, t, fmt);
    expect(confirm.text).toContain("Customer: R••• T•••");
    expect(confirm.text).toContain("Connection: TV ••••0011");
    expect(confirm.text).not.toContain("8000000011");
  });

  it("masks the connections to choose from", () => {
    const connections = [
      journey(true).connection,
      { ...journey(true).connection, id: "8000000022" },
    ];
    const choice = connectionChoice("j", connections, 0, t, true);
    expect(buttons(choice)).toEqual(["TV ••••0011 · active", "TV ••••0022 · active"]);
  });

  it("tells apart connections whose masked ids would read the same, and keeps the chosen one's", () => {
    const tv = journey(true).connection;
    const connections = [
      tv,
      { ...tv, id: "8000010011" },
      { ...tv, id: "1230000222" },
      { ...tv, id: "4560000222" },
    ];
    const choice = connectionChoice("j", connections, 0, t, true);
    expect(buttons(choice)).toEqual([
      "TV ••••00011 · active",
      "TV ••••10011 · active",
      "TV ••••00222 #1 · active",
      "TV ••••00222 #2 · active",
    ]);
    expect(connectionLine(connections[3] as Connection, t, true, connections)).toBe(
      "TV ••••00222 #2 · active",
    );
    // Shown alone (the menu's header), as before.
    expect(connectionLine(tv, t, true)).toBe("TV ••••0011 · active");
  });

  it("shows everything to the customer's own contact", () => {
    const overview = overviewView(journey(false), t, fmt, 0);
    expect(overview.text).toContain("Ram T.");
    expect(overview.text).toContain("customer 1000001");
    expect(overview.text).toContain("TV 8000000011");
    expect(overview.text).toContain("until");
    expect(buttons(overview).some((b) => b.includes("Remind"))).toBe(true);
  });
});

describe("once a method's offer is out", () => {
  it.each(["en", "ne"] as const)(
    "names the method chosen, and offers the others instead (%s)",
    (locale) => {
      const { t } = inLocale(locale);
      const journey = journeyWith([bouquet("G", "Gold (MONTHLY)")]);
      const labels = otherMethodsKeyboard(journey, ["telegram", "esewa"], t)
        .inline_keyboard.flat()
        .map((button) => button.text);
      expect(labels).toEqual([t("pay-instead-telegram"), t("pay-instead-esewa")]);
      const said = (method: string) => t("invoice-sent", { method });
      expect(new Set(["telegram", "khalti", "esewa"].map(said)).size).toBe(3);
      if (locale === "en") {
        expect(labels).toEqual(["💳 Pay by card instead", "🟢 Pay with eSewa instead"]);
        expect(said("khalti")).toMatch(/^Pay with the Khalti link below\./);
        expect(said("esewa")).toMatch(/^Pay with the eSewa link below\./);
        expect(said("telegram")).toMatch(/^Pay with the invoice below\./);
      }
    },
  );
});
