// Issue #13, what a new subscriber trips over: each point through the real bot, in English
// and Nepali where text is involved.
import { DateTime } from "luxon";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buttonsOf, expectReply } from "../support/chat.js";
import {
  type ListedBouquet as Bouquet,
  type Listing,
  rewriteListing as rewriteListingOf,
} from "../support/listing.js";
import { type Stack, startStack } from "../support/stack.js";

let stack: Stack;
let nextUser = 71_000;
const newUser = (language: "en" | "ne" = "en") =>
  stack.emulator.user({ id: ++nextUser, first_name: "New", language_code: language });

beforeAll(async () => {
  stack = await startStack("experience", { CURRENCY: "NPR", PROVIDER_TIMEZONE: "Asia/Kathmandu" });
});
afterEach(() => stack.sandbox.reset());
afterAll(() => stack.stop());

const CHOOSE = { en: "Choose a package", ne: "किन्ने प्याकेज छान्नुहोस्" };

const rewriteListing = (change: (body: Listing) => void) => rewriteListingOf(stack.sandbox, change);

describe("1. add-ons tell apart", () => {
  // Four add-ons of one name: the marker and the period in any order, twins included.
  const sportsAddOns = (body: Listing) => {
    const base = body.tv.bouquets.find((b) => b.code === "TV-ADD-SPORTS-HD") as Bouquet;
    body.tv.bouquets = body.tv.bouquets.filter((b) => !b.name.includes("[AddOn]"));
    body.tv.bouquets.push(
      { ...base, code: "SP-M", name: "Sports HD [AddOn] (MONTHLY)", price: 250 },
      { ...base, code: "SP-Q", name: "Sports HD (QUARTERLY) [AddOn]", price: 700 },
      { ...base, code: "SP-X", name: "[AddOn] Sports HD", price: 250 },
      { ...base, code: "SP-M2", name: "Sports HD [AddOn] (MONTHLY)", price: 250 },
    );
  };

  it.each([
    ["en", "Add-ons", "add-on, monthly", "Period: add-on, monthly"],
    ["ne", "एड-अन", "एड-अन, मासिक", "अवधि: एड-अन, मासिक"],
  ] as const)(
    "in %s: every button differs, each says add-on and its period",
    async (language, filter, monthly, period) => {
      rewriteListing(sportsAddOns);
      const user = newUser(language);
      await expectReply(user, () => user.sendText("/topup 1000001"), CHOOSE[language]);
      const list = await expectReply(user, () => user.press(filter), `${filter} `);
      // One page: it names no page (4).
      expect(list.text).not.toMatch(/पृष्ठ|page/);
      const sports = buttonsOf(user, list).filter((label) => label.includes("Sports HD"));
      expect(sports).toHaveLength(4);
      expect(new Set(sports).size).toBe(4);
      expect(sports.filter((label) => label.includes(`(${monthly})`))).toHaveLength(2);
      expect(sports.every((label) => label.includes(language === "en" ? "add-on" : "एड-अन"))).toBe(
        true,
      );
      expect(sports.filter((label) => label.includes("#SP-M"))).toHaveLength(2);
      // One page: no page controls (5).
      expect(buttonsOf(user, list).some((label) => label.includes("›"))).toBe(false);
      const first = sports.find((label) => label.includes("#SP-M2")) as string;
      const confirm = await expectReply(user, () => user.press(first), period);
      expect(confirm.text).toContain(period);
    },
  );
});

describe("2. amounts as money", () => {
  it("65.50 with the currency, the same on the button, the confirm screen and the receipt", async () => {
    const user = newUser();
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    let list = await expectReply(user, () => user.press("Add-ons"), /page 1 of/);
    for (let page = 2; !buttonsOf(user, list).some((label) => label.startsWith("Kids")); page++) {
      list = await expectReply(user, () => user.press("Next ›"), `page ${page} of`);
    }
    const kids = buttonsOf(user, list).find((label) => label.startsWith("Kids")) ?? "";
    expect(kids).toMatch(/· NPR\s65\.50$/);
    const confirm = await expectReply(user, () => user.press(kids), "Please confirm");
    expect(confirm.text).toMatch(/Price: NPR\s65\.50/);
    const receipt = await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
    expect(receipt.text).toMatch(/Amount: NPR\s65\.50/);
  });
});

describe("7. the receipt names the new end date", () => {
  it.each([
    ["en", "Choose a package", /Renew/, /Confirm/, "Renewed until: "],
    ["ne", CHOOSE.ne, /नवीकरण/, /पुष्टि/, "नवीकरण गरिएको अवधि: "],
  ] as const)(
    "in %s: re-read from the provider after the top-up",
    async (language, menuText, renew, confirm, until) => {
      const user = newUser(language);
      // The customer's own contact: a typed code shows no end date to compare with.
      await expectReply(user, () => user.sendText("/topup"), /./);
      const menu = await expectReply(
        user,
        () => user.sendContact({ phone_number: "9841000001" }),
        menuText,
      );
      const before = /Gold – (?:until )?([^,\n]+)/.exec(menu.text ?? "")?.[1];
      await expectReply(user, () => user.press(renew), /./);
      const receipt = await expectReply(user, () => user.press(confirm), /TXN/, 10_000);
      const line = receipt.text?.split("\n").find((l) => l.startsWith(until)) ?? "";
      expect(line.length).toBeGreaterThan(until.length + 5);
      expect(line).not.toContain(before ?? "?");
      expect(receipt.text).toContain("Gold");
      expect(receipt.text).toMatch(/\d/);
    },
  );

  it("says the renewal is done, without a date, when the re-read fails", async () => {
    const user = newUser();
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    stack.sandbox.setFault("get-subscription-package", { kind: "http-500" });
    const receipt = await expectReply(
      user,
      () => user.press(/Confirm/),
      "Top-up successful",
      15_000,
    );
    expect(receipt.text).toContain("Your package is renewed.");
    expect(receipt.text).not.toContain("Renewed until");
  });
});

describe("6. dates name the provider's zone", () => {
  it.each([
    ["en", true],
    ["ne", false],
  ] as const)(
    "in %s: a subscription's end with its time and zone where not obvious",
    async (language, named) => {
      // Ends at 23:59 in Kathmandu, three calendar days from today there.
      const end = DateTime.now()
        .setZone("Asia/Kathmandu")
        .plus({ days: 3 })
        .set({ hour: 23, minute: 59 });
      rewriteListing((body) => {
        const [first] = body.tv.subscriptions;
        body.tv.subscriptions = [{ ...first, enddate: end.toFormat("yyyy-MM-dd HH:mm:ss") }];
      });
      const user = newUser(language);
      // The customer's own contact: end dates are shown to it alone.
      await expectReply(user, () => user.sendText("/topup"), /./);
      const menu = await expectReply(
        user,
        () => user.sendContact({ phone_number: "9841000001" }),
        CHOOSE[language],
      );
      expect(menu.text?.includes("(Asia/Kathmandu)")).toBe(named);
      if (language === "en") {
        expect(menu.text).toContain(
          `${end.setLocale("en-GB").toFormat("d LLL yyyy")}, 23:59 (Asia/Kathmandu)`,
        );
        expect(menu.text).toContain("expires in 3 days");
      } else {
        expect(menu.text).toContain("३ दिनमा सकिन्छ");
      }
    },
  );
});

describe("3. /language in the middle of a journey", () => {
  it("while the bot asks whose package: asked again in the new language, and it goes on", async () => {
    const user = newUser("en");
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    await expectReply(user, () => user.sendText("/language"), "Choose your language");
    const asked = await expectReply(user, () => user.press("नेपाली"), "कसको प्याकेज");
    expect(asked.text).not.toContain("Whose");
    await expectReply(user, () => user.sendText("1000001"), CHOOSE.ne);
  });

  it("while the bot asks which connection: the same question again, in the new language", async () => {
    const user = newUser("en");
    await expectReply(user, () => user.sendText("/topup 1000002"), "Which connection");
    await expectReply(user, () => user.sendText("/language"), "Choose your language");
    await expectReply(user, () => user.press("नेपाली"), "कुन जडान");
    await expectReply(user, () => user.press(/••••0021/), CHOOSE.ne);
  });

  it("draws the current screen again in the new language, and the journey goes on there", async () => {
    const user = newUser("en");
    const menu = await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press("Add-ons"), /page 1 of/);
    await expectReply(user, () => user.press("Next ›"), /page 2 of/);
    await expectReply(user, () => user.sendText("/language"), "Choose your language");
    const redrawn = await expectReply(user, () => user.press("नेपाली"), /पृष्ठ २ \//);
    expect(redrawn.message_id).toBe(menu.message_id);
    expect(buttonsOf(user, redrawn)).toContain("अर्को ›");
    const first = await expectReply(user, () => user.press("‹ अघिल्लो"), /पृष्ठ १ \//);
    const label = buttonsOf(user, first).find((b) => b.includes("नेरू")) ?? "";
    await expectReply(user, () => user.press(label), "कृपया रिचार्ज पुष्टि गर्नुहोस्");

    // On the confirm screen, back to English: the same screen, and Confirm pays once.
    await expectReply(user, () => user.sendText("/language"), /./);
    await expectReply(user, () => user.press("English"), "Please confirm your top-up");
    const before = stack.sandbox.topups.length;
    await expectReply(user, () => user.press(/Confirm and pay/), "Top-up successful", 10_000);
    expect(stack.sandbox.topups.length).toBe(before + 1);
  });
});

describe("11. /history", () => {
  it.each([
    [
      "en",
      "Your last 2 top-ups",
      "✅ Done",
      "⏳ Still checking",
      "Transaction: ",
      "Payment: No payment in the bot (agent)",
    ],
    [
      "ne",
      "तपाईंका पछिल्ला २ रिचार्ज",
      "✅ सम्पन्न",
      "⏳ जाँच हुँदैछ",
      "कारोबार: ",
      "भुक्तानी: बोटमा भुक्तानी छैन (एजेन्ट)",
    ],
  ] as const)(
    "in %s: the user's own last top-ups, newest first, with their outcome",
    async (language, title, done, checking, txn, noPayment) => {
      // A stack of its own: the provider failing on purpose here must not trouble other tests.
      const own = await startStack(`history-${language}`, { PROVIDER_TIMEZONE: "Asia/Kathmandu" });
      try {
        const user = own.emulator.user({ id: 75_001, first_name: "Hi", language_code: language });
        const other = own.emulator.user({ id: 75_002, first_name: "Ot", language_code: language });
        /** Up to the confirm screen; returns its Confirm button. */
        const atConfirm = async (who: typeof user) => {
          await expectReply(who, () => who.sendText("/topup 1000001"), CHOOSE[language]);
          const confirm = await expectReply(who, () => who.press(/🔁/), /./);
          return buttonsOf(who, confirm)[0] as string;
        };
        const theirs = await atConfirm(other);
        await expectReply(other, () => other.press(theirs), /TXN/, 10_000);
        const otherTxn = own.sandbox.topups.at(-1)?.txnId ?? "?";
        const paid = await atConfirm(user);
        await expectReply(user, () => user.press(paid), /TXN/, 10_000);
        // The next one's outcome stays unknown: the provider fails after the effect, and cannot
        // be asked about it (until the end of this test).
        const pending = await atConfirm(user);
        own.sandbox.setFault("subscription-package-topup", { kind: "http-502", afterEffect: true });
        own.sandbox.setFault("txn-status", { kind: "http-500" });
        const stillChecking =
          language === "en" ? "could not reach the provider" : "यो रिचार्ज पुष्टि गर्न";
        await expectReply(user, () => user.press(pending), stillChecking, 10_000);

        const history = await expectReply(user, () => user.sendText("/history"), title);
        const text = history.text ?? "";
        // Newest first: the one still being checked, then the receipt's.
        expect(text.indexOf(checking)).toBeGreaterThan(0);
        expect(text.indexOf(done)).toBeGreaterThan(text.indexOf(checking));
        expect(text).toContain(txn);
        expect(text).toContain("Gold");
        // Nobody pays in the bot here: each entry says so.
        expect(text.split(noPayment)).toHaveLength(3);
        const shown = own.sandbox.topups.filter((topup) => text.includes(topup.txnId));
        expect(shown).toHaveLength(1);
        // Only their own: the other user's top-up is not there.
        expect(text).not.toContain(otherTxn);
      } finally {
        await own.stop();
      }
    },
    20_000,
  );

  it("says so when there is nothing yet", async () => {
    const user = newUser();
    await expectReply(
      user,
      () => user.sendText("/history"),
      "You have no top-ups through this bot yet",
    );
  });
});

describe("5. dead ends have a way on", () => {
  it.each([
    ["en", "🔄 Start again", "This menu has expired."],
    ["ne", "🔄 फेरि सुरु गर्नुहोस्", "यो मेनुको समय सकियो"],
  ] as const)(
    "in %s: a menu left behind loses its buttons; a stale one tapped gets a fresh start",
    async (language, start, expired) => {
      const user = newUser(language);
      const old = await expectReply(user, () => user.sendText("/topup 1000001"), CHOOSE[language]);
      const renew = old.reply_markup?.inline_keyboard[0]?.[0];
      const data = renew && "callback_data" in renew ? renew.callback_data : "";
      expect(data).not.toBe("");
      await expectReply(user, () => user.sendText("/topup 1000001"), CHOOSE[language]);
      // The new journey took the old menu's buttons away.
      const left = user.messages().find((m) => m.message_id === old.message_id);
      expect(buttonsOf(user, left)).toEqual([]);
      // A tap that still arrives for it (a client that had not updated yet) gets a way on.
      const answer = user.waitForCallbackAnswer();
      user.pressData(data, old.message_id);
      expect((await answer).text).toContain(expired);
      await user.waitForMessage(
        (m) => m.message_id === old.message_id && buttonsOf(user, m).length === 1,
      );
      const stale = user.messages().find((m) => m.message_id === old.message_id);
      expect(buttonsOf(user, stale)).toEqual([start]);
      await expectReply(user, () => user.press(start, { messageId: old.message_id }), /./);
    },
  );

  it("a customer without a connection to renew is told how to go on", async () => {
    // The sandbox's customer 1000007 has no connections at all.
    const user = newUser();
    const reply = await expectReply(user, () => user.sendText("/topup 1000007"), "no connection");
    expect(reply.text).toContain("/topup");
  });
});

describe("9. saved connections", () => {
  it.each([
    [
      "en",
      "Top up one of your connections again",
      "Which connection",
      "🗑 Forget these",
      "no connections are remembered",
    ],
    [
      "ne",
      "आफ्नो कुनै जडान फेरि रिचार्ज गर्नुहोस्",
      "कुन जडान",
      "🗑 यी बिर्सनुहोस्",
      "अब तपाईंका कुनै जडान सम्झिइएका छैनन्",
    ],
  ] as const)(
    "in %s: offered after a top-up, one tap to the connection's packages, /forget",
    async (language, title, whichConnection, forgetLabel, forgotten) => {
      const user = newUser(language);
      // Nothing is remembered before a top-up.
      await expectReply(user, () => user.sendText("/topup"), /./);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(user.messages().some((m) => m.text?.startsWith(title))).toBe(false);

      // Sita (1000002) has three connections; renew the second one, 8000000021.
      await expectReply(user, () => user.sendText("1000002"), whichConnection);
      await expectReply(user, () => user.press(/••••0021/), CHOOSE[language]);
      const confirm = await expectReply(user, () => user.press(/🔁/), /./);
      await expectReply(
        user,
        () => user.press(buttonsOf(user, confirm)[0] as string),
        /TXN/,
        10_000,
      );

      const offer = await expectReply(user, () => user.sendText("/topup"), title);
      const saved = buttonsOf(user, offer);
      // Found by a code typed: saved masked, as everywhere else (the one rule).
      expect(saved[0]).toMatch(/^S••• S••• · .+ ••••0021$/);
      expect(saved).toContain(forgetLabel);
      // One tap: straight to that connection's packages, no question which connection.
      const before = user.messages().length;
      const menu = await expectReply(user, () => user.press(saved[0] as string), CHOOSE[language]);
      expect(menu.text).toContain("••••0021");
      expect(
        user
          .messages()
          .slice(before)
          .some((m) => m.text?.includes(whichConnection)),
      ).toBe(false);

      const again = await expectReply(user, () => user.sendText("/topup"), title);
      await expectReply(
        user,
        () => user.press(forgetLabel, { messageId: again.message_id }),
        forgotten,
      );
      await expectReply(user, () => user.sendText("/topup"), /./);
      await new Promise((resolve) => setTimeout(resolve, 150));
      // The offer answered with Forget now says so; no new offer came after it.
      const offers = user.messages().filter((m) => m.text?.startsWith(title));
      expect(offers.every((m) => m.message_id < again.message_id)).toBe(true);
    },
  );

  it("one rule: a connection proved by the buyer's contact reads in full everywhere, a typed one masked everywhere", async () => {
    const user = newUser();
    const buy = async (start: () => unknown, connection: RegExp) => {
      await expectReply(user, start, "Which connection");
      await expectReply(user, () => user.press(connection), CHOOSE.en);
      const confirm = await expectReply(user, () => user.press(/🔁/), "Please confirm");
      return expectReply(
        user,
        () => user.press(buttonsOf(user, confirm)[0] as string),
        "Top-up successful",
        10_000,
      );
    };
    // Typed: Sita's customer id. The connection list, the receipt: masked.
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    const typed = await buy(() => user.sendText("1000002"), /••••0022/);
    expect(typed.text).toContain("Connection: TV ••••0022");
    expect(typed.text).not.toContain("8000000022");
    // Proved: the buyer's own shared contact (Sita's mobile). In full.
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    const proved = await buy(
      () => user.sendContact({ phone_number: "9851000002" }),
      /TV 8000000021 · active/,
    );
    expect(proved.text).toContain("Connection: TV 8000000021");

    // The saved list says each as it was found.
    const offer = await expectReply(user, () => user.sendText("/topup"), "Top up one of");
    const saved = buttonsOf(user, offer);
    expect(saved.slice(0, 2)).toEqual(["Sita S. · TV 8000000021", "S••• S••• · TV ••••0022"]);
    // The proved one tapped: still the buyer's own, in full (no "Found by a code").
    const before = user.messages().length;
    const own = await expectReply(user, () => user.press(saved[0] as string), CHOOSE.en);
    expect(own.text).toContain("TV 8000000021 · active");
    expect(own.text).toMatch(/until .*, expires in \d+ days/);
    const since = user
      .messages()
      .slice(before)
      .map((m) => m.text ?? "");
    expect(since.some((text) => text.includes("Found by a code"))).toBe(false);
    // The typed one tapped: masked, and said so.
    const again = await expectReply(user, () => user.sendText("/topup"), "Top up one of");
    const masked = await expectReply(
      user,
      () => user.press(buttonsOf(user, again)[1] as string, { messageId: again.message_id }),
      CHOOSE.en,
    );
    expect(masked.text).toContain("TV ••••0022");
    expect(user.messages().some((m) => m.text?.includes("Found by a code"))).toBe(true);

    // /history: the same rule.
    const history = await expectReply(user, () => user.sendText("/history"), "Your last");
    expect(history.text).toContain("TV 8000000021");
    expect(history.text).toContain("TV ••••0022");
    expect(history.text).not.toContain("8000000022");
  });

  it("/forget says so, in English", async () => {
    const user = newUser();
    await expectReply(user, () => user.sendText("/forget"), "no connections are remembered");
  });
});
