// The offline playground's page in a real browser (the system's Chromium, driven by
// playwright-core): a top-up completed by clicking and paid with a test card, as a person
// would, with the provider's side of it in the side panel; a declined card; Telegram
// formatting; the support group; Nepali; a phone; and, on playgrounds of their own, a top-up
// paid on the Khalti sandbox's page, one paid on the eSewa sandbox's page (reached from the
// bot's pay page), and all three methods offered together; each receipt's Remind me. Every
// button of the playground, for every role: playground-buttons.test.ts.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import RedisMock from "ioredis-mock";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/adapters/logger.js";
import {
  DEMO_BOT_TOKEN,
  type Playground,
  ROLES,
  startPlayground,
} from "../../tools/playground/playground.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = "test-output/playground.png";

let playground: Playground;
let browser: Browser;
/** The browser's switches: one browser for both playgrounds. */
const BROWSER_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
let page: Page;
/** Errors the page logged or threw; none expected. */
const pageProblems: string[] = [];

/** Without a browser every test fails (a skip would hide it): CI installs Chromium. */
const NO_CHROMIUM = existsSync(CHROMIUM)
  ? undefined
  : `No Chromium at ${CHROMIUM}: the playground's browser test needs the system Chromium ` +
    "(apt-get install chromium, or set CHROMIUM_PATH). Browsers are never downloaded.";

function needsChromium(): void {
  if (NO_CHROMIUM) throw new Error(NO_CHROMIUM);
}

beforeAll(async () => {
  if (NO_CHROMIUM) return;
  playground = await startPlayground({
    host: "127.0.0.1",
    port: 0,
    env: { LOG_LEVEL: "silent" },
    paymentMode: "telegram",
    redis: new RedisMock(),
    logger: createLogger("silent"),
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: BROWSER_ARGS,
  });
  page = await browser.newPage({
    viewport: { width: 1280, height: 800 },
    locale: "en-GB",
    timezoneId: "Asia/Kathmandu",
  });
  page.on("pageerror", (error) => pageProblems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageProblems.push(message.text());
  });
  await page.goto(playground.url);
  await page.locator("body[data-ready='true']").waitFor();
}, 20_000);

afterAll(async () => {
  await browser?.close();
  await playground?.close();
});

/** The shown chat's message whose text contains `text` (the last such one). */
const message = (text: string | RegExp): Locator =>
  page.locator("#messages .message", { hasText: text }).last();

const button = (scope: Locator | Page, name: string): Locator =>
  scope.getByRole("button", { name, exact: true });

/** Telegram's payment form, open over the chat. */
const checkoutForm = (): Locator => page.getByRole("dialog", { name: "Checkout" });

/**
 * The first of `matching` that `action` brings (not an earlier one like it), by its id: found
 * still once edited, and gone once deleted.
 */
async function appearing(matching: Locator, action: () => Promise<unknown>): Promise<Locator> {
  const before = await matching.count();
  await action();
  const id = await matching.nth(before).getAttribute("data-message-id");
  return page.locator(`#messages .message[data-message-id="${id}"]`);
}

const withText = (text: string): Locator => page.locator("#messages .message", { hasText: text });

/** From /topup to the invoice for TV 8000000021's Gold (monthly), by clicking. */
async function orderGold(): Promise<Locator> {
  const connections = await appearing(
    withText("Which connection do you want to renew?"),
    async () => {
      await send("/topup");
      await page.locator(".reply-button", { hasText: "Share my phone number" }).click();
    },
  );
  const menu = await appearing(withText("Choose a package to buy:"), () =>
    button(connections, "TV 8000000021 · active").click(),
  );
  await button(menu, "Monthly").click();
  // Once bought, the bot lists it first as "🔁 Renew Gold (monthly) · …".
  await menu.getByRole("button", { name: /Gold \(monthly\) · NPR\s700\.00$/ }).click();
  return appearing(page.locator("#messages .message:has(.invoice)"), () =>
    button(menu, "💳 Pay NPR 700.00").click(),
  );
}

async function send(text: string): Promise<void> {
  await page.locator("#composer").fill(text);
  await page.locator("#composer").press("Enter");
}

/** The bot's Bot API, as the bot itself would call it. */
async function botApi(method: string, body: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(`${playground.emulator.apiRoot}/bot${DEMO_BOT_TOKEN}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { ok: boolean; result?: unknown; description?: string };
  if (!answer.ok) throw new Error(`${method}: ${answer.description}`);
  return answer.result;
}

describe("the playground page", () => {
  it("completes a top-up by clicking, pays it with the test card, and shows the provider's side of it", async () => {
    needsChromium();
    await expect(page.locator("#api-version").textContent()).resolves.toContain("v1.0.1");
    await page.locator("#customers .customer[data-cuid='1000002']").waitFor();

    await send("/topup");
    await message("Whose package shall we renew?").waitFor();
    await page.locator(".reply-button", { hasText: "Share my phone number" }).click();
    await page.locator(".message.outgoing .contact", { hasText: "📱 9851000002" }).waitFor();
    // The reply keyboard goes once the bot has the number.
    await page.locator("#reply-keyboard").waitFor({ state: "hidden" });

    const connections = message("Which connection do you want to renew?");
    await button(connections, "TV 8000000021 · active").click();

    const menu = message("Choose a package to buy:");
    await menu.waitFor();
    const menuId = await menu.getAttribute("data-message-id");
    const menuElement = await menu.elementHandle();
    await button(menu, "Monthly").click();
    const edited = page.locator(`#messages .message[data-message-id="${menuId}"]`);
    await edited.filter({ hasText: "Monthly packages" }).waitFor();
    // Edited in place: the very same element, now with the new text and marked "edited".
    expect(await menuElement?.evaluate((node: { isConnected: boolean }) => node.isConnected)).toBe(
      true,
    );
    expect(await menuElement?.textContent()).toContain("Monthly packages");
    expect(await edited.count()).toBe(1);
    await edited.locator(".edited").waitFor();

    await button(edited, "Gold (monthly) · NPR 700.00").click();
    await edited.filter({ hasText: "Please confirm your top-up" }).waitFor();
    await button(edited, "💳 Pay NPR 700.00").click();
    await page.locator(".toast", { hasText: "Processing" }).waitFor();
    await edited.filter({ hasText: "Pay with the invoice below" }).waitFor();

    // The invoice, drawn as Telegram's card: title, description, amount, Pay and Cancel.
    const invoice = page.locator("#messages .message:has(.invoice)").last();
    await invoice.waitFor();
    await expect(invoice.locator(".invoice-title").textContent()).resolves.toBe("Gold");
    await expect(invoice.locator(".invoice-description").textContent()).resolves.toContain(
      // The buyer shared their own contact: in full, as the summary above shows it.
      "Gold (monthly) for TV 8000000021",
    );
    await expect(invoice.locator(".invoice-amount").textContent()).resolves.toMatch(
      /^NPR\s700\.00$/,
    );
    // The bot's amounts have a no-break space ("NPR 700.00"), as Intl writes them.
    const labels = await invoice.locator(".inline-button").allTextContents();
    expect(labels.map((label) => label.replace(/\s+/g, " "))).toEqual([
      "💳 Pay NPR 700.00",
      "Cancel",
    ]);
    expect(playground.sandbox.topups).toHaveLength(0);

    // Pay opens the payment form, the paying test card already in it.
    await button(invoice, "💳 Pay NPR 700.00").click();
    const form = checkoutForm();
    await form.waitFor();
    await expect(form.getByLabel("Card number").inputValue()).resolves.toBe("4242 4242 4242 4242");
    await button(form, "Pay NPR 700.00").click();
    await form.waitFor({ state: "hidden" });
    await page
      .locator("#messages .message.service", {
        hasText: "You successfully transferred NPR 700.00 to Top-up Bot",
      })
      .waitFor();
    await message("Payment received").waitFor();
    // Paid: Telegram shows no Pay button on it any more.
    await expect(button(invoice, "✓ Paid").isDisabled()).resolves.toBe(true);

    const receipt = message("Top-up successful");
    await receipt.waitFor({ timeout: 15_000 });
    const receiptText = (await receipt.textContent()) ?? "";
    const txnId = /Transaction: (TXN\w+)/.exec(receiptText)?.[1];
    expect(txnId, receiptText).toBeDefined();
    expect(receiptText).toMatch(/Paid: NPR\s700\.00 by card/);
    await expect(receipt.locator("strong, b").first().textContent()).resolves.toBe(
      "Top-up successful",
    );
    expect(await receipt.locator(".inline-button").allTextContents()).toEqual([
      "Top up another",
      "Done",
      "🔔 Remind me before it ends",
    ]);

    const row = page.locator(`#topups [data-txn-id="${txnId}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain("8000000021");
    expect(playground.sandbox.topups).toHaveLength(1);
    expect(playground.sandbox.topups[0]?.txnId).toBe(txnId);

    // The receipt's Remind me answers with the dates (an alert, closed with its OK).
    await remindMe(page, receipt);

    // The journey, the customers and the top-up (the README's picture: playground-buttons.test.ts).
    await page.locator(".toast").first().waitFor({ state: "detached" });
    await mkdir("test-output", { recursive: true });
    await page.screenshot({ path: SCREENSHOT, animations: "disabled" });
  }, 25_000);

  it("tells a declined test card and charges nothing; the invoice's Cancel withdraws it", async () => {
    needsChromium();
    const invoice = await orderGold();
    const paidBefore = await page.locator("#messages .message.service").count();

    await button(invoice, "💳 Pay NPR 700.00").click();
    const form = checkoutForm();
    await form.waitFor();
    await form.getByLabel("Card number").fill("4000 0000 0000 0002");
    await button(form, "Pay NPR 700.00").click();
    await form.getByRole("alert").filter({ hasText: "Your card was declined" }).waitFor();
    // The form stays open for another card; nothing was paid or topped up.
    expect(await form.isVisible()).toBe(true);
    expect(await page.locator("#messages .message.service").count()).toBe(paidBefore);
    expect(playground.sandbox.topups).toHaveLength(1);

    // A mistyped number is told at once, and the bot is not asked.
    await form.getByLabel("Card number").fill("4242 4242 4242 4241");
    await button(form, "Pay NPR 700.00").click();
    await form.getByRole("alert").filter({ hasText: "card number is incorrect" }).waitFor();

    await button(form, "Cancel").click();
    await form.waitFor({ state: "hidden" });
    await button(invoice, "Cancel").click();
    await message("Payment cancelled").waitFor();
    await invoice.waitFor({ state: "detached" });
    expect(playground.sandbox.topups).toHaveLength(1);
  }, 20_000);

  it("renders Telegram formatting from entities, as text and never as HTML", async () => {
    needsChromium();
    await page.locator("#role-admin").click();
    await page.locator("#messages[data-role='admin']").waitFor();
    const parts = [
      "😀 ",
      "Bold italic",
      " overlap, <b>not a tag</b>, ",
      "a link",
      ", ",
      "a secret",
      " and ",
      "/help",
      "\n",
      "const x = 1;",
      "\n",
      "A quote",
    ];
    const text = parts.join("");
    const at = (part: string, offset = 0, length = part.length) => ({
      offset: text.indexOf(part) + offset,
      length,
    });
    await botApi("sendMessage", {
      chat_id: ROLES.admin.chatId,
      text,
      entities: [
        { type: "bold", ...at("Bold italic") },
        { type: "underline", ...at("Bold italic", 0, 4) },
        // Overlaps the bold one: "italic overlap".
        { type: "italic", ...at("Bold italic", 5, 14) },
        { type: "text_link", ...at("a link"), url: "https://example.com/docs" },
        { type: "spoiler", ...at("a secret") },
        { type: "bot_command", ...at("/help") },
        { type: "pre", ...at("const x = 1;"), language: "ts" },
        { type: "blockquote", ...at("A quote") },
      ],
      reply_markup: {
        inline_keyboard: [
          [
            { text: "Docs", url: "https://example.com/" },
            { text: "Press", callback_data: "not-a-menu" },
          ],
        ],
      },
    });
    const formatted = message("not a tag");
    await formatted.waitFor();
    const bubble = formatted.locator(".bubble");
    await expect(bubble.locator("strong").first().textContent()).resolves.toBe("Bold italic");
    await expect(bubble.locator("strong u").textContent()).resolves.toBe("Bold");
    await expect(bubble.locator("strong em").textContent()).resolves.toBe("italic");
    expect((await bubble.locator("em").allTextContents()).join("")).toBe("italic overlap");
    expect(await bubble.locator("b").count()).toBe(0);
    await expect(bubble.textContent()).resolves.toContain("<b>not a tag</b>");
    const link = bubble.locator("a", { hasText: "a link" });
    expect(await link.getAttribute("href")).toBe("https://example.com/docs");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toContain("noopener");
    await expect(bubble.locator(".spoiler").textContent()).resolves.toBe("a secret");
    await expect(bubble.locator("pre code.language-ts").textContent()).resolves.toBe(
      "const x = 1;",
    );
    await expect(bubble.locator("blockquote").textContent()).resolves.toBe("A quote");
    const docs = formatted.locator("a.inline-button", { hasText: "Docs" });
    expect(await docs.getAttribute("href")).toBe("https://example.com/");
    expect(await docs.getAttribute("target")).toBe("_blank");

    // A photo with a caption, then deleted.
    const photo = (await botApi("sendPhoto", {
      chat_id: ROLES.admin.chatId,
      photo: "https://example.com/poster.jpg",
      caption: "Festival offer",
      caption_entities: [{ type: "bold", offset: 0, length: 8 }],
    })) as { message_id: number };
    const photoMessage = page.locator(`#messages .message[data-message-id="${photo.message_id}"]`);
    await photoMessage.locator(".photo").waitFor();
    await expect(photoMessage.locator("strong").textContent()).resolves.toBe("Festival");
    await botApi("deleteMessage", { chat_id: ROLES.admin.chatId, message_id: photo.message_id });
    await photoMessage.waitFor({ state: "detached" });

    // "typing…" while the bot says it is typing.
    await botApi("sendChatAction", { chat_id: ROLES.admin.chatId, action: "typing" });
    await page.locator("#chat-status.typing", { hasText: "typing…" }).waitFor();

    // A callback button: the bot's answer is a toast (this one is not the bot's menu).
    await button(formatted, "Press").click();
    await page.locator(".toast", { hasText: "expired" }).waitFor();
    await formatted.locator(".inline-button.loading").waitFor({ state: "detached" });

    // A bot_command is clickable and sends the command.
    await button(bubble, "/help").click();
    await page.locator("#messages .message.outgoing", { hasText: "/help" }).waitFor();
  });

  it("shows the support group's card with the sender's name and HTML characters as text", async () => {
    needsChromium();
    await page.locator("#role-support").click();
    await page.locator("#messages[data-role='support']").waitFor();
    await expect(page.locator("#chat-title").textContent()).resolves.toBe("Support desk");
    // The "/" menu lists the group's commands and fills the text box; a code from the side
    // panel goes in at the cursor.
    await page.locator("#menu-button").click();
    await page.locator("#command-menu .command-name").first().waitFor();
    expect(await page.locator("#command-menu .command-name").allTextContents()).toEqual([
      "/lookup 1000002",
      "/txn",
      "/recent",
    ]);
    await page.locator("#command-menu .command-item", { hasText: "/txn" }).click();
    expect(await page.locator("#composer").inputValue()).toBe("/txn ");
    await page.locator("#composer").fill("/lookup ");
    await page.locator("#customers .code[data-code='1000008']").click();
    expect(await page.locator("#composer").inputValue()).toBe("/lookup 1000008");
    await page.locator("#send").click();
    const card = message("O'Brien <Ltd> & Sons");
    await card.waitFor();
    await expect(card.locator("strong").first().textContent()).resolves.toBe(
      "Seán O'Brien <Ltd> & Sons",
    );
    expect(await page.locator("#messages ltd").count()).toBe(0);
    await expect(card.locator(".sender").textContent()).resolves.toBe("Top-up Bot");
    await button(card, "🔄 Refresh").waitFor();

    // Meanwhile the subscriber's chat gets a message: an unread badge on its switch.
    await fetch(`${playground.url}/api/send`, {
      method: "POST",
      body: JSON.stringify({ role: "user", text: "/help" }),
    });
    await page.locator("#badge-user:not([hidden])").waitFor();
    await expect(page.locator("#badge-user").textContent()).resolves.toBe("1");
  });

  it("switches the people's Telegram to Nepali and gets Nepali replies", async () => {
    needsChromium();
    await page.locator("#role-user").click();
    await page.locator("#messages[data-role='user']").waitFor();
    await page.locator("#badge-user").waitFor({ state: "hidden" });
    await page.locator("#language").selectOption("ne");
    await page.locator(".toast", { hasText: "नेपाली" }).waitFor();
    const before = await page.locator("#messages .message.incoming").count();
    await send("/help");
    const reply = page.locator("#messages .message.incoming").nth(before);
    await reply.waitFor();
    expect(await reply.textContent()).toMatch(/[\u0900-\u097F]{3,}/);
    // Commands in the bot's plain text are live, as in Telegram.
    expect(await reply.locator(".bot-command", { hasText: "/topup" }).count()).toBeGreaterThan(0);
  });

  it("draws emoji and Devanagari with real fonts, not tofu", async () => {
    needsChromium();
    // A probe among the messages, styled as they are; DevTools says which fonts drew it.
    await page.locator("#messages").evaluate((messages) => {
      const probe = messages.ownerDocument.createElement("div");
      probe.id = "glyph-probe";
      probe.className = "message incoming";
      probe.textContent = "नेपाली रिचार्ज ✅🔁😀";
      messages.append(probe);
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("DOM.enable");
    await cdp.send("CSS.enable");
    const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
    const { nodeId } = await cdp.send("DOM.querySelector", {
      nodeId: root.nodeId,
      selector: "#glyph-probe",
    });
    const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
    await cdp.detach();
    await page.locator("#glyph-probe").evaluate((probe) => probe.remove());
    const families = fonts.map((font) => font.familyName);
    // Debian's fonts-noto-color-emoji and fonts-lohit-deva, which .ci/run installs.
    expect(families, families.join(", ")).toContain("Noto Color Emoji");
    expect(
      families.some((family) => /Devanagari/i.test(family)),
      families.join(", "),
    ).toBe(true);
  });

  it("fits a phone: the chat and the text box visible, the side panel behind a toggle", async () => {
    needsChromium();
    await page.setViewportSize({ width: 390, height: 844 });
    await sleep(100);
    const chat = await page.locator("#messages").boundingBox();
    const composer = await page.locator("#composer").boundingBox();
    expect(chat).not.toBeNull();
    expect(composer).not.toBeNull();
    if (!chat || !composer) return;
    expect(chat.height).toBeGreaterThan(400);
    expect(chat.x).toBeGreaterThanOrEqual(0);
    expect(chat.x + chat.width).toBeLessThanOrEqual(390);
    expect(composer.y + composer.height).toBeLessThanOrEqual(844);
    expect(await page.locator("#composer").isVisible()).toBe(true);
    const panel = await page.locator("#side-panel").boundingBox();
    if (panel) {
      const overlaps =
        panel.x < chat.x + chat.width &&
        chat.x < panel.x + panel.width &&
        panel.y < chat.y + chat.height &&
        chat.y < panel.y + panel.height;
      expect(overlaps).toBe(false);
    }
    await page.screenshot({ path: "test-output/playground-phone.png", animations: "disabled" });

    await page.locator("#panel-toggle").click();
    await page.locator("#topups .topup").first().waitFor();
    await page.screenshot({
      path: "test-output/playground-phone-panel.png",
      animations: "disabled",
    });
    await page.locator("#panel-close").click();
    await page.locator("#side-panel").waitFor({ state: "hidden" });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(pageProblems).toEqual([]);
  });
});

/**
 * A playground of its own that pays with `paymentMode`, and a browser tab on its page: started
 * before the suite's tests, closed after them. `redisPort` keeps its in-process Redis apart
 * (ioredis-mock shares one store between instances of a port).
 */
function payingPlayground(paymentMode: "khalti" | "esewa" | "fonepay" | "all", redisPort: number) {
  const opened = {} as { playground: Playground; context: BrowserContext; chat: Page };
  const problems: string[] = [];
  beforeAll(async () => {
    if (NO_CHROMIUM) return;
    opened.playground = await startPlayground({
      host: "127.0.0.1",
      port: 0,
      env: { LOG_LEVEL: "silent" },
      paymentMode,
      redis: new RedisMock({ port: redisPort }),
      logger: createLogger("silent"),
    });
    opened.context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: "en-GB",
      timezoneId: "Asia/Kathmandu",
    });
    const chat = await opened.context.newPage();
    opened.chat = chat;
    chat.on("pageerror", (error) => problems.push(error.message));
    chat.on("console", (entry) => {
      if (entry.type() === "error") problems.push(entry.text());
    });
    await chat.goto(opened.playground.url);
    await chat.locator("body[data-ready='true']").waitFor();
  }, 20_000);
  afterAll(async () => {
    await opened.context?.close();
    await opened.playground?.close();
  });
  const said = (text: string | RegExp): Locator =>
    opened.chat.locator("#messages .message", { hasText: text }).last();
  return { opened, problems, said };
}

/**
 * /topup to the confirm screen of Gold (monthly), then `pay` on it: by default its one Pay
 * button (one payment method; several have a button each). Returns the confirm screen.
 */
async function buyGoldAndPay(
  chat: Page,
  said: (text: string | RegExp) => Locator,
  pay = (confirm: Locator) => button(confirm, "💳 Pay NPR 700.00").click(),
): Promise<Locator> {
  chat.setDefaultTimeout(10_000);
  await chat.locator("#composer").fill("/topup");
  await chat.locator("#composer").press("Enter");
  await chat.locator(".reply-button", { hasText: "Share my phone number" }).click();
  await button(said("Which connection do you want to renew?"), "TV 8000000021 · active").click();
  const choose = said("Choose a package to buy:");
  await choose.waitFor();
  // By its id: edited in place, it no longer says "Choose a package".
  const menuId = await choose.getAttribute("data-message-id");
  const menu = chat.locator(`#messages .message[data-message-id="${menuId}"]`);
  await button(menu, "Monthly").click();
  await menu.filter({ hasText: "Monthly packages" }).waitFor();
  await menu.getByRole("button", { name: /Gold \(monthly\) · NPR\s700\.00$/ }).click();
  await menu.filter({ hasText: "Please confirm your top-up" }).waitFor();
  await pay(menu);
  return menu;
}

/** The receipt's "Remind me": the bot's alert names the dates, and its OK closes it. */
async function remindMe(chat: Page, receipt: Locator): Promise<void> {
  await button(receipt, "🔔 Remind me before it ends").click();
  await chat.locator("#alert-text", { hasText: "We will remind you on" }).waitFor();
  await chat.locator("#alert-ok").click();
  await chat.locator("#alert").waitFor({ state: "hidden" });
}

/** From the bot's eSewa link to eSewa's Pay on the sandbox, the bot's success page in a new tab. */
async function payOnEsewa(
  opened: { playground: Playground; context: BrowserContext; chat: Page },
  esewa: NonNullable<Playground["esewa"]>,
  said: (text: string | RegExp) => Locator,
): Promise<void> {
  const chat = opened.chat;
  // The bot's link: a URL button to its own pay page, drawn as a link that opens a new tab.
  const link = chat.getByRole("link", { name: /Pay NPR\s700\.00 with eSewa/ });
  await link.waitFor();
  const payUrl = (await link.getAttribute("href")) ?? "";
  const uuid = payUrl.slice(`${esewa.publicUrl}/pay/esewa/`.length);
  expect(payUrl).toBe(`${esewa.publicUrl}/pay/esewa/${uuid}`);
  expect(uuid).toMatch(/^[A-Za-z0-9-]+$/);
  expect(await link.getAttribute("target")).toBe("_blank");
  const links = await said("with eSewa below").locator(".inline-button").allTextContents();
  expect(links.map((label) => label.replace(/\s+/g, " "))).toEqual(
    expect.arrayContaining(["✅ I have paid", "Cancel"]),
  );
  // Nothing is at eSewa until the buyer's browser posts the form.
  expect(esewa.sandbox.payments()).toEqual([]);
  expect(opened.playground.sandbox.topups).toHaveLength(0);

  // The bot's pay page in a new tab: its button posts the signed form to the sandbox.
  const [tab] = await Promise.all([opened.context.waitForEvent("page"), link.click()]);
  await tab.waitForLoadState();
  expect(tab.url()).toBe(payUrl);
  // What is paid: the amount large, the package and its period in words.
  await expect(tab.locator(".amount-value").textContent()).resolves.toMatch(/^NPR\s700\.00$/);
  await expect(tab.locator(".order dd").allTextContents()).resolves.toEqual([
    "TV ••••0021",
    "Gold",
    "monthly",
  ]);
  await Promise.all([
    tab.waitForURL(`${esewa.sandbox.url}/pay/${uuid}`),
    button(tab, "Pay with eSewa").click(),
  ]);
  await expect(tab.locator(".amount").textContent()).resolves.toBe("Total: NPR 700.00");
  // The sandbox's Pay sends the tab back to the bot's success page, which asks eSewa.
  await Promise.all([
    tab.waitForURL(`${esewa.publicUrl}/pay/esewa/success?data=**`),
    button(tab, "Pay").click(),
  ]);
  await tab.getByText("Payment received").waitFor();
  expect(esewa.sandbox.payment(uuid)?.status).toBe("COMPLETE");
  await backToTheChat(opened.playground, tab);
}

/**
 * The bot's page's "Back to Telegram" leads to the playground's stand-in for t.me, which opens
 * its chat in that tab (never t.me): then the tab is closed.
 */
async function backToTheChat(playground: Playground, tab: Page): Promise<void> {
  const back = tab.getByRole("link", { name: "Back to Telegram" });
  expect(await back.getAttribute("href")).toBe(`${playground.url}/t.me/topup_playground_bot`);
  await Promise.all([tab.waitForURL(`${playground.url}/`), back.click()]);
  await tab.locator("body[data-ready='true']").waitFor();
  await tab.close();
}

describe("the playground page, paying with Khalti (DEMO_PAYMENT_MODE=khalti)", () => {
  const { opened, problems, said } = payingPlayground("khalti", 16_379);

  it("opens the Khalti sandbox's page from the bot's link, and the chat goes on to the receipt", async () => {
    needsChromium();
    const chat = opened.chat;
    const khalti = opened.playground.khalti;
    expect(khalti).toBeDefined();
    if (!khalti) return;
    await expect(chat.locator("#guide-pay").textContent()).resolves.toContain("Khalti");

    await buyGoldAndPay(chat, said);

    // The bot's link: a URL button, drawn as a link that opens a new tab.
    const link = chat.getByRole("link", { name: /Pay NPR\s700\.00 with Khalti/ });
    await link.waitFor();
    const pidx = khalti.sandbox.payments().at(-1)?.pidx ?? "";
    expect(await link.getAttribute("href")).toBe(`${khalti.sandbox.url}/pay/${pidx}`);
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toContain("noopener");
    const links = await said("with Khalti below").locator(".inline-button").allTextContents();
    expect(links.map((label) => label.replace(/\s+/g, " "))).toEqual(
      expect.arrayContaining(["✅ I have paid", "Cancel"]),
    );
    expect(opened.playground.sandbox.topups).toHaveLength(0);

    // The sandbox's checkout page in a new tab; its Pay goes back to the bot's return page.
    const [checkout] = await Promise.all([opened.context.waitForEvent("page"), link.click()]);
    await checkout.waitForLoadState();
    expect(checkout.url()).toBe(`${khalti.sandbox.url}/pay/${pidx}`);
    await expect(checkout.locator(".amount").textContent()).resolves.toBe("NPR 700.00");
    // The sandbox's own way back leads to the playground's chat too.
    expect(
      await checkout.getByRole("link", { name: "← Back to Telegram" }).getAttribute("href"),
    ).toBe(`${opened.playground.url}/t.me/topup_playground_bot`);
    await Promise.all([
      checkout.waitForURL(`${khalti.publicUrl}/pay/khalti/return?**`),
      button(checkout, "Pay").click(),
    ]);
    await checkout.getByText("Payment received").waitFor();
    expect(khalti.sandbox.payment(pidx)?.status).toBe("Completed");
    await backToTheChat(opened.playground, checkout);

    // Meanwhile the chat went on by itself.
    const receipt = said("Top-up successful");
    await receipt.waitFor({ timeout: 15_000 });
    expect(await receipt.textContent()).toMatch(/Paid: NPR\s700\.00 with Khalti/);
    expect(opened.playground.sandbox.topups).toHaveLength(1);
    await remindMe(chat, receipt);
    expect(problems).toEqual([]);
  }, 30_000);
});

describe("the playground page, paying with eSewa (DEMO_PAYMENT_MODE=esewa)", () => {
  const { opened, problems, said } = payingPlayground("esewa", 16_380);

  it("opens the bot's pay page from its link, posts it to the eSewa sandbox, and the chat goes on to the receipt", async () => {
    needsChromium();
    const chat = opened.chat;
    const esewa = opened.playground.esewa;
    expect(esewa).toBeDefined();
    if (!esewa) return;
    await expect(chat.locator("#guide-pay").textContent()).resolves.toContain("eSewa");

    await buyGoldAndPay(chat, said);

    await payOnEsewa(opened, esewa, said);

    // Meanwhile the chat went on by itself.
    const receipt = said("Top-up successful");
    await receipt.waitFor({ timeout: 15_000 });
    expect(await receipt.textContent()).toMatch(/Paid: NPR\s700\.00 with eSewa/);
    expect(opened.playground.sandbox.topups).toHaveLength(1);
    await remindMe(chat, receipt);
    expect(problems).toEqual([]);
  }, 30_000);
});

describe("the playground page, paying with Fonepay (DEMO_PAYMENT_MODE=fonepay)", () => {
  const { opened, problems, said } = payingPlayground("fonepay", 16_382);

  it("shows the QR in the chat as an image; the Fonepay sandbox's page pays it and the chat goes on to the receipt", async () => {
    needsChromium();
    const chat = opened.chat;
    const fonepay = opened.playground.fonepay;
    expect(fonepay).toBeDefined();
    if (!fonepay) return;
    await expect(chat.locator("#guide-pay").textContent()).resolves.toContain("Fonepay");

    await buyGoldAndPay(chat, said);
    const qr = said("Scan this QR");
    await qr.waitFor();
    await expect(qr.locator("img").count()).resolves.toBeGreaterThan(0);
    const labels = await qr.locator(".inline-button").allTextContents();
    expect(labels.map((label) => label.replace(/\s+/g, " "))).toEqual(["✅ I have paid", "Cancel"]);
    const [payment] = fonepay.payments();
    expect(payment?.amount).toBe("700.00");

    // The bank app: the sandbox's list of QRs, the QR's page, Pay.
    const bank = await opened.context.newPage();
    await bank.goto(`${fonepay.url}/`);
    await bank.getByRole("link", { name: payment?.prn ?? "" }).click();
    await bank.locator("svg").first().waitFor();
    await bank.getByRole("button", { name: "Pay", exact: true }).click();
    await bank.locator(".status", { hasText: "success" }).waitFor();

    const receipt = said("Top-up successful");
    await receipt.waitFor({ timeout: 15_000 });
    expect(await receipt.textContent()).toMatch(/Paid: NPR\s700\.00 with Fonepay QR/);
    expect(opened.playground.sandbox.topups).toHaveLength(1);
    await bank.close();
    expect(problems).toEqual([]);
  }, 30_000);
});

describe("the playground page, offering every method (DEMO_PAYMENT_MODE=all)", () => {
  const { opened, problems, said } = payingPlayground("all", 16_381);

  it("shows eSewa, Khalti, Fonepay QR and card in that order on the confirm screen, and eSewa's ends in the receipt", async () => {
    needsChromium();
    const chat = opened.chat;
    const { khalti, esewa } = opened.playground;
    expect(khalti).toBeDefined();
    expect(esewa).toBeDefined();
    if (!khalti || !esewa) return;
    // One bot site for Khalti's return page and eSewa's pages.
    expect(khalti.publicUrl).toBe(esewa.publicUrl);
    await expect(chat.locator("#guide-pay").textContent()).resolves.toContain("Pay by card");

    // Its method buttons, without Back and Cancel.
    const methods = async (confirm: Locator) =>
      (await confirm.locator(".inline-button").allTextContents()).filter((label) =>
        label.includes("Pay"),
      );
    const confirm = await buyGoldAndPay(chat, said, async (confirm) => {
      expect(await methods(confirm)).toEqual([
        "🟢 Pay with eSewa",
        "📱 Pay with Khalti",
        "🔳 Pay with Fonepay QR",
        "💳 Pay by card",
      ]);
      await button(confirm, "🟢 Pay with eSewa").click();
    });
    await payOnEsewa(opened, esewa, said);

    const receipt = said("Top-up successful");
    await receipt.waitFor({ timeout: 15_000 });
    // Paid: the confirm screen keeps no other method, no button that leads nowhere.
    await expect.poll(() => methods(confirm)).toEqual([]);
    expect(await receipt.textContent()).toMatch(/Paid: NPR\s700\.00 with eSewa/);
    expect(opened.playground.sandbox.topups).toHaveLength(1);
    expect(khalti.sandbox.payments()).toEqual([]);
    expect(problems).toEqual([]);
  }, 30_000);
});
