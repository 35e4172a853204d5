import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buttonsOf, expectReply } from "../support/chat.js";
import { type Stack, startStack } from "../support/stack.js";

const VARIANTS = [
  ["v1.0.1", "strict"],
  ["v1.0.0", "strict"],
  ["v1.0.1", "foreign"],
  ["v1.0.0", "foreign"],
] as const;

describe.each(VARIANTS)("the top-up journey on %s, a %s provider", (version, profile) => {
  let stack: Stack;
  let nextUser = 2000 + 1000 * VARIANTS.findIndex(([v, p]) => v === version && p === profile);
  const newUser = (language_code = "en") =>
    stack.emulator.user({ id: ++nextUser, first_name: "Ana", language_code });

  beforeAll(async () => {
    stack = await startStack(
      `journey-${version}-${profile}`,
      { PROVIDER_API_VERSION: version },
      { profile },
    );
  });
  afterAll(() => stack.stop());

  it("renews a TV add-on found through a shared contact, paging through the list", async () => {
    const user = newUser();
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    expect(user.replyKeyboard()?.keyboard.flat()[0]).toMatchObject({ request_contact: true });
    // 1000002 has three TV connections; the sandbox finds it by its mobile number.
    const choice = await expectReply(
      user,
      () => user.sendContact({ phone_number: "+977 9851000002" }),
      "Which connection",
    );
    expect(user.inlineButtons(choice)).toHaveLength(3);
    expect(choice.text).toContain("Inactive connections can be renewed too");
    const menu = await expectReply(user, () => user.press(/8000000022/), "Choose a package");
    expect(menu.text).toContain("Sita S.");
    expect(menu.text).not.toContain("Sharma");
    expect(menu.text).toMatch(/Silver – until .*, expired 10 days ago/);
    expect(buttonsOf(user, menu)).toEqual(
      expect.arrayContaining([
        "Monthly",
        "Quarterly",
        "Half-yearly",
        "Yearly",
        "Add-ons",
        "Cancel",
      ]),
    );

    const first = await expectReply(user, () => user.press("Add-ons"), /page 1 of \d/);
    const pages = Number(/page 1 of (\d+)/.exec(first.text ?? "")?.[1]);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(first.message_id).toBe(menu.message_id);
    expect(buttonsOf(user, first).filter((b) => b.includes("NPR"))).toHaveLength(8);
    expect(buttonsOf(user, first)).toContain(`1/${pages}`);
    const second = await expectReply(user, () => user.press("Next ›"), `page 2 of ${pages}`);
    expect(second.message_id).toBe(menu.message_id);
    await expectReply(user, () => user.press("‹ Prev"), `page 1 of ${pages}`);
    await expectReply(user, () => user.press("Next ›"), `page 2 of ${pages}`);
    const label = buttonsOf(user).find((b) => b.includes("NPR")) ?? "";
    const confirm = await expectReply(user, () => user.press(label), "Please confirm");
    expect(confirm.text).toContain("Period: add-on");
    // Back leads to the page the bouquet was picked from.
    await expectReply(user, () => user.press("Back"), `page 2 of ${pages}`);
    await expectReply(user, () => user.press(label), "Please confirm");

    const receipt = await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
    expect(receipt.text).toMatch(/Transaction: TXN\d+/);
    expect(receipt.text).toContain("Connection: TV 8000000022");
    expect(buttonsOf(user, receipt)).toEqual([
      "Top up another",
      "Done",
      "🔔 Remind me before it ends",
    ]);
    // The receipt took the place of the menu and its "Processing…"; nothing is left above it
    // to press, and the sandbox executed exactly one top-up.
    expect(receipt.message_id).toBe(menu.message_id);
    expect(user.messages().some((m) => m.text?.includes("Processing your top-up"))).toBe(false);
    expect(buttonsOf(user).filter((label) => /Confirm/.test(label))).toEqual([]);
    expect(stack.sandbox.topups.filter((t) => t.reqId === "8000000022")).toHaveLength(1);
    const [topup] = stack.sandbox.topups.filter((t) => t.reqId === "8000000022");
    expect(topup?.udf1 === undefined).toBe(version === "v1.0.0");
  });

  it("names no page on a list that fits one, and shows no page controls", async () => {
    const user = newUser();
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    const list = await expectReply(user, () => user.press("Quarterly"), "Quarterly packages");
    expect(list.text).not.toMatch(/page|\d+\/\d+/i);
    const buttons = buttonsOf(user, list);
    const bouquets = buttons.filter((label) => label.includes("NPR"));
    expect(bouquets.length).toBeGreaterThan(0);
    expect(bouquets.length).toBeLessThanOrEqual(8);
    expect(buttons).toEqual([...bouquets, "Back"]);
  });

  it("renews an internet plan after an unknown code, nonsense and a stranger's contact", async () => {
    const user = newUser();
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    await expectReply(user, () => user.sendText("hello world"), "does not look like");
    await expectReply(user, () => user.sendText("9800000000"), "No customer found for 9800000000");
    await expectReply(
      user,
      () => user.sendContact({ phone_number: "9861000004", user_id: 99 }),
      "your own phone number",
    );
    // A connection's own id names that connection: no question which one.
    const menu = await expectReply(user, () => user.sendText("gita.karki"), "Choose a package");
    expect(menu.text).toContain("Internet ••••arki");
    expect(menu.text).toContain("• Fiber 50 Mbps\n");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
    const topup = stack.sandbox.topups.find((t) => t.reqId === "gita.karki");
    expect(topup?.service).toBe("internet");
    // The renewal shows up in the next package listing.
    await expectReply(user, () => user.press("Top up another"), "Whose package");
    // The customer's own contact: a typed code would show no end date to compare.
    await expectReply(
      user,
      () => user.sendContact({ phone_number: "9861000004" }),
      "Which connection",
    );
    const again = await expectReply(user, () => user.press(/gita\.karki/), "Choose a package");
    expect(again.text).not.toContain("expired 3 days ago");
  });

  it("speaks Nepali to a Nepali client from start to receipt", async () => {
    const user = newUser("ne");
    await expectReply(user, () => user.sendText("/topup 1000003"), "प्याकेज छान्नुहोस्");
    await expectReply(user, () => user.press(/नवीकरण/), "पुष्टि गर्नुहोस्");
    const receipt = await expectReply(user, () => user.press(/पुष्टि गरी/), "रिचार्ज सफल भयो");
    // Found by a code typed: the receipt masks the connection, as every view of it does.
    expect(receipt.text).toContain("इन्टरनेट ••••rung");
  });
});

describe("around the journey", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("around");
  });
  afterAll(() => stack.stop());

  it("welcomes, helps, switches language and registers commands in both languages", async () => {
    const user = stack.emulator.user({ id: 4001, first_name: "Bo", language_code: "en" });
    const welcome = await expectReply(user, () => user.sendText("/start"), "Welcome");
    expect(buttonsOf(user, welcome)).toEqual(["Top up now"]);
    await expectReply(user, () => user.press("Top up now"), "Whose package");
    await expectReply(user, () => user.sendText("/help"), "/cancel");
    await expectReply(user, () => user.sendText("/language"), "Choose your language");
    await expectReply(user, () => user.press("नेपाली"), "भाषा नेपालीमा");
    await expectReply(user, () => user.sendText("/cancel"), "रद्द गरियो");
    expect(user.commands().map((c) => c.command)).toEqual([
      "start",
      "topup",
      "history",
      "reminders",
      "forget",
      "cancel",
      "help",
      "language",
    ]);
    const nepali = stack.emulator.user({ id: 4002, first_name: "Ra", language_code: "ne" });
    expect(nepali.commands()[1]?.description).toBe("प्याकेज नवीकरण");
  });

  it("shows a customer found by a typed code masked, and in full to their own contact", async () => {
    const stranger = stack.emulator.user({ id: 4007, first_name: "Gu", language_code: "en" });
    await expectReply(stranger, () => stranger.sendText("/topup"), "Whose package");
    const choice = await expectReply(
      stranger,
      () => stranger.sendText("9851000002"),
      "Which connection",
    );
    expect(buttonsOf(stranger, choice)).toEqual([
      "TV ••••0021 · active",
      "TV ••••0022 · active",
      "TV ••••0023 · inactive",
    ]);
    // A typed id is not matched against the hidden ones: the buttons are the way.
    await expectReply(stranger, () => stranger.sendText("8000000021"), "tap one of the buttons");
    const menu = await expectReply(stranger, () => stranger.press(/••••0021/), "Choose a package");
    expect(menu.text).toContain("S••• S••• (active)\nTV ••••0021 · active");
    expect(menu.text).toContain("• Gold HD\n");
    expect(buttonsOf(stranger, menu).some((label) => label.includes("Remind"))).toBe(false);
    // Nor does a forged "remind me" button tell a date.
    const cancel = menu.reply_markup?.inline_keyboard.flat().find((b) => b.text === "Cancel");
    const journeyId = /^t:x:(\w+)$/.exec(
      cancel && "callback_data" in cancel ? (cancel.callback_data ?? "") : "",
    )?.[1];
    expect(journeyId).toBeDefined();
    const forged = stranger.waitForCallbackAnswer();
    stranger.pressData(`t:v:${journeyId}:0`, menu.message_id);
    expect((await forged).text).toBe(
      "The provider gives no end date for it, so there is nothing to remind you of.",
    );
    const confirm = await expectReply(stranger, () => stranger.press(/Renew/), "Please confirm");
    expect(confirm.text).toContain("Customer: S••• S•••\nConnection: TV ••••0021 · active");
    const shown = stranger.messages().flatMap((m) => [m.text ?? "", ...buttonsOf(stranger, m)]);
    for (const hidden of ["Sita", "Sharma", "customer 1000002", "80000000", "until", "ago"]) {
      expect(shown.filter((text) => text.includes(hidden))).toEqual([]);
    }

    const owner = stack.emulator.user({ id: 4008, first_name: "Si", language_code: "en" });
    await expectReply(owner, () => owner.sendText("/topup"), "Whose package");
    await expectReply(
      owner,
      () => owner.sendContact({ phone_number: "9851000002" }),
      "Which connection",
    );
    const full = await expectReply(owner, () => owner.press(/8000000021/), "Choose a package");
    expect(full.text).toContain("Sita S. · customer 1000002 (active)\nTV 8000000021 · active");
    expect(full.text).toMatch(/Gold HD – until .*, expires in \d+ days/);
    expect(buttonsOf(owner, full).some((label) => label.includes("Remind"))).toBe(true);
  });

  it("renders names with HTML special characters", async () => {
    const user = stack.emulator.user({ id: 4003, first_name: "Cy", language_code: "en" });
    stack.sandbox.setFault("get-customer-information", {
      kind: "transform",
      times: 1,
      transform: (response) => {
        const body = response.body as { customer: { first_name: string } };
        body.customer.first_name = "<b>O'Brien & Sons</b>";
        return response;
      },
    });
    const card = await expectReply(user, () => user.sendText("/topup 1000008"), "<••• O•••");
    expect(card.text).toContain("<••• O•••");
    const menu = await user.waitForText("Choose a package");
    expect(menu.text).toContain("S••• O•••");
  });

  it("answers stickers, unknown commands, long texts and stale or forged buttons", async () => {
    const user = stack.emulator.user({ id: 4004, first_name: "Di", language_code: "en" });
    await expectReply(user, () => user.sendText("/frobnicate"), "don't know that command");
    await expectReply(user, () => user.sendText("x".repeat(4000)), "Send /topup");
    await expectReply(
      user,
      () =>
        stack.emulator.injectUpdate(stack.env.BOT_TOKEN as string, {
          message: {
            message_id: 77,
            date: Math.floor(Date.now() / 1000),
            chat: { id: user.chatId, type: "private", first_name: "Di" },
            from: user.user,
            sticker: {
              file_id: "s",
              file_unique_id: "s",
              type: "regular",
              width: 1,
              height: 1,
              is_animated: false,
              is_video: false,
            },
          },
        }),
      "Send /topup",
    );
    const menu = await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    const answersBefore = stack.emulator.calls("answerCallbackQuery").length;
    const forged = user.waitForCallbackAnswer();
    user.pressData("t:zzzzzz:o", menu.message_id);
    expect((await forged).text).toBe("This menu has expired.");
    const junk = user.waitForCallbackAnswer();
    user.pressData("nonsense", menu.message_id);
    expect((await junk).text).toBe("This menu has expired.");
    await expectReply(user, () => user.press("Cancel"), "Cancelled");
    const stale = user.waitForCallbackAnswer();
    user.pressData(`t:${"a".repeat(10)}:c`, menu.message_id);
    expect((await stale).text).toBe("This menu has expired.");
    // Four presses, four answers, all accepted by Telegram (calls are recorded once answered).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answers = stack.emulator.calls("answerCallbackQuery").slice(answersBefore);
    expect(answers).toHaveLength(4);
    expect(answers.every((call) => call.response.ok)).toBe(true);
  });

  it("retries Telegram's 429 inside the conversation too", async () => {
    const user = stack.emulator.user({ id: 4006, first_name: "Fl", language_code: "en" });
    stack.emulator.failNext(
      "sendMessage",
      {
        error_code: 429,
        description: "Too Many Requests: retry after 1",
        parameters: { retry_after: 1 },
      },
      1,
    );
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    const refused = stack.emulator.calls("sendMessage").filter((call) => !call.response.ok);
    expect(refused.at(-1)?.response).toMatchObject({ error_code: 429 });
  });

  it("leaves a flow with /cancel from any step and removes the keyboards", async () => {
    const user = stack.emulator.user({ id: 4005, first_name: "Ed", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup"), "Whose package");
    await expectReply(user, () => user.sendText("/cancel"), "Cancelled");
    expect(user.replyKeyboard()).toBeNull();
    await expectReply(user, () => user.sendText("1000001"), "Send /topup");
    const menu = await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.sendText("/cancel"), "Cancelled");
    const current = user.messages().find((m) => m.message_id === menu.message_id);
    expect(user.inlineButtons(current)).toEqual([]);
    await expectReply(user, () => user.sendText("/cancel"), "nothing to cancel");
  });
});
