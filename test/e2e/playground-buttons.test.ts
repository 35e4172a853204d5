// Every button the offline playground shows, tapped in a real browser (the system's Chromium,
// driven by playwright-core) as a newcomer would: the subscriber pays with eSewa, Khalti (a Fonepay QR offered too) and a
// card (DEMO_PAYMENT_MODE=all) and taps Remind me under each receipt and in the package menu,
// and the Mini App's buttons (/start's and /topup's "🛒 Open the shop", a receipt's "🛒 Renew in
// the shop", the chat's menu button), each opening the app beside the chat;
// the admin sends every command of its menu (the report's CSV a file card, its chart an image);
// the support group its own; then the page in Nepali, the card form and "✓ Paid" included.
//
// Each tap must have an effect (a message, an edit, or an answer other than "Processing…"; a
// Mini App button, the app opened at its address and drawn), no reply may be an error
// ("something went wrong", "temporarily unavailable"), the page may log no error, the bot no
// error line. Every kind of button shown (by its callback data's feature and action, a link's
// label, a reply button's text, a menu's command, the address a Mini App button opens) is
// tapped at least once: a new button fails this test until a journey here taps it.
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import RedisMock from "ioredis-mock";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Playground, startPlayground } from "../../tools/playground/playground.js";
import { captureLogs } from "../support/log-capture.js";
import { until } from "../support/wait.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"];
const ROLES = ["user", "admin", "support"] as const;
type Role = (typeof ROLES)[number];

/** A bot's text in a language, from its Fluent file (one-line messages). */
function botText(language: "en" | "ne", file: string, key: string): string {
  const source = readFileSync(`locales/${language}/${file}.ftl`, "utf8");
  const line = new RegExp(`^${key} = (.+)$`, "m").exec(source)?.[1];
  if (!line) throw new Error(`no ${key} in locales/${language}/${file}.ftl`);
  return line;
}

/** Replies that mean the bot failed: none may appear anywhere. */
const ERROR_REPLIES = (["en", "ne"] as const).flatMap((language) => [
  botText(language, "topup", "error-generic"),
  botText(language, "topup", "store-unavailable"),
  botText(language, "topup", "provider-unavailable"),
  botText(language, "support", "support-error"),
  botText(language, "payments", "payment-unavailable"),
]);
/** The answer a payment button gives at once, before what it does shows. */
const PROCESSING = [botText("en", "topup", "processing"), botText("ne", "topup", "processing")];

/**
 * The test's eyes in the page (plain JavaScript, run before the page's own): the bot's answers
 * to taps (toasts and alerts, in order, as they come and go), what kind of button an element
 * is, and the page's own words (i18n.js).
 */
const PROBE = `
window.probe = {
  answers: [],
  describe(element) {
    const label = (element.textContent || "").replace(/\\s+/g, " ").trim();
    if (element.classList.contains("pay-button")) return { kind: "invoice: Pay", label };
    // The Mini App's buttons (web_app, and the chat's menu button): by the address they open,
    // its query's names only (a receipt's "?renew=<purchase>").
    if (element.classList.contains("webapp-button") || element.id === "menu-app") {
      const url = new URL(element.dataset.webapp || element.dataset.url || "", location.href);
      const query = [...url.searchParams.keys()].join("&");
      const opens = url.pathname + (query ? "?" + query : "");
      return { kind: (element.id === "menu-app" ? "menu app: " : "app: ") + opens, label };
    }
    if (element.classList.contains("reply-button")) return { kind: "reply: " + label, label };
    if (element.classList.contains("empty-action")) {
      return { kind: "start: " + element.dataset.command, label };
    }
    if (element.classList.contains("url-button")) {
      return { kind: "link: " + label.replace(/[\\d.,]+/g, "#").replace("↗", "").trim(), label };
    }
    // Confirm's methods are one action each ("t:c:<journey>:<method>").
    const [feature, action, , method] = (element.dataset.callback || "").split(":");
    const kind = feature === "t" && action === "c" && method ? "t:c:" + method : feature + ":" + action;
    return { kind, label };
  },
  chat() {
    return [...document.querySelectorAll("#messages > .message")]
      .map((element) => element.dataset.messageId + ":" + element.textContent)
      .join("\\n");
  },
  texts: () => import("/i18n.js").then((i18n) => i18n.TEXTS),
  // Which of the labels the page shows outside the chat and the sandbox's data (names, notes),
  // as text or as a title, an aria-label or a placeholder.
  shows(labels) {
    const outside = (element) => !element.closest("#messages, #customers, #topups");
    const words = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      if (text && outside(node.parentElement)) words.push(text);
    }
    for (const element of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
      if (!outside(element)) continue;
      for (const name of ["title", "aria-label", "placeholder"]) {
        const value = element.getAttribute(name);
        if (value) words.push(value);
      }
    }
    return labels.filter((label) => words.includes(label));
  },
};
addEventListener("DOMContentLoaded", () => {
  const answers = window.probe.answers;
  const toasts = document.getElementById("toasts");
  const alert = document.getElementById("alert");
  // Only the playground's page (the payment pages opened from it have neither).
  if (!toasts || !alert) return;
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) answers.push(node.textContent || "");
  }).observe(toasts, { childList: true });
  new MutationObserver(() => {
    if (!alert.hidden) answers.push(document.getElementById("alert-text").textContent || "");
  }).observe(alert, { attributes: true, attributeFilter: ["hidden"] });
});
`;

/** What PROBE gives the test; `element` is the page's (typed loosely: no DOM types here). */
interface Probe {
  answers: string[];
  describe(element: unknown): { kind: string; label: string };
  chat(): string;
  texts(): Promise<Record<"en" | "ne", Record<string, string>>>;
  shows(labels: string[]): string[];
}

let playground: Playground;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const logs = captureLogs("warn");
const problems: string[] = [];
/** Kinds of button shown and tapped, with a label of each for the failure message. */
const shown = new Map<string, string>();
const tapped = new Set<string>();

beforeAll(async () => {
  // Without a browser the test fails (a skip would hide it): CI installs Chromium.
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH.`);
  }
  playground = await startPlayground({
    host: "127.0.0.1",
    port: 0,
    // The journey taps at a machine's pace, faster than a person: on an idle machine its bursts
    // pass the default FLOOD_LIMIT (30 updates in 10 s) and the bot rightly drops taps.
    env: { LOG_LEVEL: "warn", FLOOD_LIMIT: "1000" },
    paymentMode: "all",
    redis: new RedisMock({ port: 16_390 }),
    logger: logs.logger,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    locale: "en-GB",
    timezoneId: "Asia/Kathmandu",
    acceptDownloads: true,
  });
  context.setDefaultTimeout(10_000);
  await context.addInitScript({ content: PROBE });
  page = await context.newPage();
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  // The bot sets its command menus as it starts: the "/" menu shows them once they are there.
  await until(async () => {
    const menu = await fetch(`${playground.url}/api/commands/admin`).then((answer) =>
      answer.json(),
    );
    return (menu as { commands: unknown[] }).commands.length > 0;
  }, 10_000);
  await page.goto(playground.url);
  await page.locator("body[data-ready='true']").waitFor();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await playground?.close();
});

// ---------------------------------------------------------------------------------------------
// Driving the page

/** The shown chat's last message containing `text`. */
const said = (text: string | RegExp): Locator =>
  page.locator("#messages .message", { hasText: text }).last();

const byId = (id: string | null): Locator =>
  page.locator(`#messages .message[data-message-id="${id}"]`);

const buttonIn = (scope: Locator, name: string | RegExp): Locator =>
  scope.getByRole("button", { name, exact: typeof name === "string" }).last();

/** The Mini App's buttons: web_app buttons in the chat, and the chat's menu button. */
const APP_BUTTONS = "#messages .webapp-button, #menu-app";
const isAppKind = (kind: string) => kind.startsWith("app: ") || kind.startsWith("menu app: ");
/** The app's first screen's heading, in either language. */
const APP_HOME = [botText("en", "app", "app-connections"), botText("ne", "app", "app-connections")];

/**
 * Taps a button that opens the Mini App, and checks it opened beside the chat at the button's
 * address, signed in (its first screen drawn with the API's answer, no alert): a receipt's
 * "Renew in the shop" on that receipt's connection's packages, every other on the
 * subscriber's connections. The app is closed again with its ✕.
 */
async function tapApp(button: Locator): Promise<void> {
  await button.waitFor();
  await collect();
  await openApp(button, await kindOf(button));
}

async function openApp(button: Locator, { kind, label }: { kind: string; label: string }) {
  tapped.add(kind);
  const { address, message } = await button.evaluate((element) => {
    const shown = element as unknown as {
      dataset: Record<string, string | undefined>;
      closest(selector: string): { textContent: string | null } | null;
    };
    return {
      address: shown.dataset.webapp ?? shown.dataset.url ?? "",
      message: shown.closest(".message")?.textContent ?? "",
    };
  });
  await button.click();
  const frame = page.locator("#mini-app iframe");
  await frame.waitFor();
  const src = (await frame.getAttribute("src")) ?? "";
  expect(src.startsWith(`${address}#tgWebAppData=`), `"${label}" (${kind}) opens ${src}`).toBe(
    true,
  );
  const app = page.frameLocator("#mini-app iframe");
  if (new URL(address).searchParams.has("renew")) {
    // Deep-linked: the packages of the receipt's connection at once.
    await app.locator(".bouquets li").first().waitFor();
    const heading = (await app.locator("main h1").textContent()) ?? "";
    expect
      .soft(message, `"${label}" opens the receipt's connection (the app shows "${heading}")`)
      .toContain(heading.split(" ").at(-1) ?? "-");
  } else {
    await app.getByRole("heading", { name: new RegExp(`^(${APP_HOME.join("|")})$`) }).waitFor();
    await app.locator("main h1 + :is(ul, p)").first().waitFor();
  }
  expect.soft(await app.getByRole("alert").count(), `"${label}" (${kind}): an alert`).toBe(0);
  await tapPageButton(page.locator("#mini-app-close"));
  await frame.waitFor({ state: "detached" });
}

/** Every button the shown chat and its keyboards offer now, noted as shown. */
async function collect(): Promise<void> {
  const found = await page
    .locator(
      `#messages .inline-button:not([disabled]), #reply-keyboard:not([hidden]) .reply-button, #messages .empty-action, ${APP_BUTTONS}`,
    )
    .evaluateAll((elements) =>
      elements.map((element) =>
        (globalThis as unknown as { probe: Probe }).probe.describe(element),
      ),
    );
  for (const { kind, label } of found) if (!shown.has(kind)) shown.set(kind, label);
}

/** What the page shows of the bot now: the chat's messages, how many answers so far. */
async function snapshot(): Promise<{ chat: string; answers: number }> {
  return page.evaluate(() => {
    const { probe } = globalThis as unknown as { probe: Probe };
    return { chat: probe.chat(), answers: probe.answers.length };
  });
}

async function answersSince(count: number): Promise<string[]> {
  return page.evaluate(
    (from) => (globalThis as unknown as { probe: Probe }).probe.answers.slice(from),
    count,
  );
}

/** What kind of button `button` is, and its label. */
const kindOf = (button: Locator) =>
  button.evaluate((element) => (globalThis as unknown as { probe: Probe }).probe.describe(element));

/**
 * Taps a button and waits for the bot to do something visible: a message or an edit, or an
 * answer that is more than "Processing…". A button that does nothing is a failure (soft: the
 * journey goes on, the test fails at its end). An alert is read and closed with its OK.
 */
async function tap(button: Locator): Promise<string[]> {
  await button.waitFor();
  await collect();
  const { kind, label } = await kindOf(button);
  if (isAppKind(kind)) {
    await openApp(button, { kind, label });
    return [];
  }
  tapped.add(kind);
  const before = await snapshot();
  await button.click();
  let answers: string[] = [];
  // Telegram's flood control (the emulator's too) may hold a reply after a burst for seconds.
  const reacted = await until(async () => {
    answers = await answersSince(before.answers);
    const now = await snapshot();
    return now.chat !== before.chat || answers.some((answer) => !PROCESSING.includes(answer));
  }, 15_000).then(
    () => true,
    () => false,
  );
  const dropped = logs.lines().some((line) => line.includes("flood: a user's updates are dropped"));
  expect
    .soft(
      reacted,
      `"${label}" (${kind}) did nothing the buyer could see${dropped ? " (FLOOD_LIMIT dropped taps)" : ""}`,
    )
    .toBe(true);
  if (await page.locator("#alert").isVisible()) await tapPageButton(page.locator("#alert-ok"));
  await noErrorReplies();
  return answers;
}

/** A button of the page itself (not the bot's): noted as shown and tapped. */
async function tapPageButton(button: Locator): Promise<void> {
  const kind = `page: ${await button.getAttribute("id")}`;
  shown.set(kind, kind);
  tapped.add(kind);
  await button.click();
}

/** An invoice's Pay: the page's card form opens (the bot hears of it only when the card pays). */
async function openCheckout(pay: Locator): Promise<void> {
  await collect();
  tapped.add((await kindOf(pay)).kind);
  await pay.click();
  await page.getByRole("dialog").waitFor();
}

/** Sends a command from the "/" menu, as listed there; every item of the menu is noted shown. */
async function command(role: Role, name: string, argument?: string): Promise<void> {
  await page.locator("#menu-button").click();
  const items = page.locator("#command-menu .command-item");
  await items.first().waitFor();
  for (const fill of await items.evaluateAll((all) =>
    all.map((item) => (item.getAttribute("data-fill") ?? "").split(" ")[0]),
  )) {
    shown.set(`menu ${role}: ${fill}`, fill);
  }
  const item = items.filter({ has: page.locator(".command-name", { hasText: `/${name}` }) });
  await item.first().click();
  tapped.add(`menu ${role}: /${name}`);
  if (argument !== undefined) await page.locator("#composer").fill(`/${name} ${argument}`);
  const before = await page.locator("#messages .message.outgoing").count();
  await page.locator("#composer").press("Enter");
  await page.locator("#messages .message.outgoing").nth(before).waitFor();
}

async function type(text: string): Promise<void> {
  await page.locator("#composer").fill(text);
  await page.locator("#composer").press("Enter");
}

async function switchTo(role: Role): Promise<void> {
  await page.locator(`#role-${role}`).click();
  await page.locator(`#messages[data-role='${role}']`).waitFor();
}

/** No reply of the bot, toast or alert says it failed. */
async function noErrorReplies(): Promise<void> {
  const texts = [
    (await page.locator("#messages").textContent()) ?? "",
    ...(await answersSince(0)),
  ].join("\n");
  for (const error of ERROR_REPLIES) {
    expect(texts.includes(error), `the bot said "${error}"`).toBe(false);
  }
}

/**
 * Taps, newest first, every button of the shown chat whose kind was not tapped yet (those a
 * journey above did not reach, such as a broadcast's "Stop announcements").
 */
async function sweep(): Promise<void> {
  for (let round = 0; round < 20; round++) {
    await collect();
    const buttons = page.locator(
      `#messages .inline-button:not([disabled]):not(a), #reply-keyboard:not([hidden]) .reply-button, ${APP_BUTTONS}`,
    );
    const kinds = await buttons.evaluateAll((elements) =>
      elements.map(
        (element) => (globalThis as unknown as { probe: Probe }).probe.describe(element).kind,
      ),
    );
    const index = kinds.findLastIndex((kind) => !tapped.has(kind));
    if (index === -1) return;
    await tap(buttons.nth(index));
  }
}

// ---------------------------------------------------------------------------------------------
// The journeys

/** /topup (or a saved connection) to the confirm screen of Gold (monthly); returns it. */
async function toConfirm(from: "share" | "saved"): Promise<Locator> {
  await command("user", "topup");
  if (from === "share") {
    await tap(page.locator(".reply-button", { hasText: "Share my phone number" }));
    await tap(buttonIn(said("Which connection do you want to renew?"), "TV 8000000021 · active"));
  } else {
    await tap(buttonIn(said("Top up one of your connections again"), /8000000021/));
    // Saved from the buyer's own shared phone: shown in full, as when it was shared.
    await said("Choose a package to buy:").waitFor();
    expect
      .soft(
        await said("Choose a package to buy:").textContent(),
        "a connection saved from the shared phone",
      )
      .not.toMatch(/••••/);
  }
  const choose = said("Choose a package to buy:");
  const menu = byId(await choose.getAttribute("data-message-id"));
  await tap(buttonIn(menu, "Monthly"));
  await menu.filter({ hasText: "Monthly packages" }).waitFor();
  await tap(buttonIn(menu, /Gold \(monthly\) · NPR\s700\.00$/));
  await menu.filter({ hasText: "Please confirm your top-up" }).waitFor();
  return menu;
}

/**
 * The page as the README shows it: a purchase at its confirm screen, the three methods to pay
 * with. The README's copy changes only on purpose (UPDATE_SCREENSHOTS=1): times and ids differ
 * every run.
 */
async function screenshot(): Promise<void> {
  await page.locator(".toast").first().waitFor({ state: "detached" });
  await page.locator("#composer").blur();
  await mkdir("test-output", { recursive: true });
  await page.screenshot({ path: "test-output/playground-all.png", animations: "disabled" });
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    await copyFile("test-output/playground-all.png", "docs/images/playground.png");
  }
}

/** A link button's page in a new tab, paid there; the tab ends on the bot's "Payment received". */
async function payOnSandbox(linkName: RegExp, steps: string[]): Promise<void> {
  const link = page.getByRole("link", { name: linkName }).last();
  await link.waitFor();
  await collect();
  tapped.add((await kindOf(link)).kind);
  const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
  tab.on("pageerror", (error) => problems.push(`${tab.url()}: ${error.message}`));
  for (const step of steps) {
    await tab.getByRole("button", { name: step, exact: true }).waitFor();
    await Promise.all([
      tab.waitForNavigation(),
      tab.getByRole("button", { name: step, exact: true }).click(),
    ]);
  }
  await tab.getByText("Payment received").waitFor();
  // Back to the playground's chat: the offline playground never sends the buyer to t.me.
  const back = tab.getByRole("link", { name: /Back to Telegram/ });
  for (const href of await back.evaluateAll((links) =>
    links.map((link) => link.getAttribute("href")),
  )) {
    expect.soft(href, "the payment page's Back to Telegram").not.toMatch(/^https:\/\/t\.me\//);
  }
  await tab.close();
}

/** The receipt's "Remind me": the bot's answer names the dates. */
async function remindFrom(receipt: Locator): Promise<void> {
  const answers = await tap(buttonIn(receipt, "🔔 Remind me before it ends"));
  expect(answers.join(" ")).toMatch(/We will remind you on/);
}

/**
 * A method button left on a confirm screen whose purchase ended: it is gone, or tapping it
 * does something (the menu expired, with a way forward), never nothing.
 */
async function leftOverMethod(confirm: Locator, name: RegExp): Promise<void> {
  const left = confirm.getByRole("button", { name });
  if ((await left.count()) === 0) return;
  await tap(left.first());
}

describe("every button of the playground (DEMO_PAYMENT_MODE=all)", () => {
  it("subscriber: eSewa, Khalti, Fonepay QR and card, switched, cancelled and paid, Remind me under each receipt", async () => {
    // An empty message box shows no scrollbar.
    const overflow = await page
      .locator("#composer")
      .evaluate((box) => box.scrollHeight - box.clientHeight);
    expect(overflow).toBe(0);
    // /start's buttons (the shop opens beside the chat, as from the chat's menu button), the
    // phone shared, the package menu's own Remind me, Back and Cancel.
    await command("user", "start");
    await tapApp(buttonIn(said("Welcome"), "🛒 Open the shop"));
    await tapApp(page.locator("#menu-app"));
    await tap(buttonIn(said("Welcome"), /Top up now/));
    await tap(page.locator(".reply-button", { hasText: "Share my phone number" }));
    await tap(buttonIn(said("Which connection do you want to renew?"), "TV 8000000021 · active"));
    const choose = said("Choose a package to buy:");
    const menu = byId(await choose.getAttribute("data-message-id"));
    const remindHere = menu.getByRole("button", { name: /Remind me/ });
    if ((await remindHere.count()) > 0) {
      const answers = await tap(remindHere.first());
      expect(answers.join(" ")).toMatch(/We will remind you on/);
    }
    await tap(buttonIn(menu, "Monthly"));
    await menu.filter({ hasText: "Monthly packages" }).waitFor();
    // Back from the list to the periods, from the confirm screen to the list.
    await tap(buttonIn(menu, "Back"));
    await tap(buttonIn(menu, "Monthly"));
    await tap(buttonIn(menu, /Gold \(monthly\) · NPR\s700\.00$/));
    await tap(buttonIn(menu, "Back"));
    await menu.filter({ hasText: "Monthly packages" }).waitFor();
    await tap(buttonIn(menu, /Gold \(monthly\) · NPR\s700\.00$/));
    await tap(buttonIn(menu, "Cancel"));

    // eSewa offered, "I have paid" before paying, then Khalti, then a card, the invoice cancelled.
    let confirm = await toConfirm("share");
    await screenshot();
    await tap(buttonIn(confirm, "🟢 Pay with eSewa"));
    await page.getByRole("link", { name: /Pay NPR\s700\.00 with eSewa/ }).waitFor();
    // The confirm screen names the method chosen: there is no invoice with eSewa.
    expect
      .soft(await confirm.textContent(), "the confirm screen after eSewa")
      .not.toMatch(/invoice/);
    await tap(buttonIn(said("with eSewa below"), "✅ I have paid"));
    // Another method, once one is chosen, is offered "instead".
    await tap(buttonIn(confirm, "📱 Pay with Khalti instead"));
    await page.getByRole("link", { name: /Pay NPR\s700\.00 with Khalti/ }).waitFor();
    // The Fonepay QR: an image in the chat, "I have paid" under it before paying.
    await tap(buttonIn(confirm, "🔳 Pay with Fonepay QR instead"));
    const qr = said("Scan this QR");
    await qr.locator("img").first().waitFor();
    await tap(buttonIn(qr, "✅ I have paid"));
    await tap(buttonIn(confirm, "💳 Pay by card instead"));
    const invoice = page.locator("#messages .message:has(.invoice)").last();
    await tap(buttonIn(invoice, "Cancel"));
    await invoice.waitFor({ state: "detached" });
    await leftOverMethod(confirm, /Pay with eSewa/);

    // eSewa paid; Remind me; the Khalti button left on the confirm screen; Top up another.
    confirm = await toConfirm("share");
    await tap(buttonIn(confirm, "🟢 Pay with eSewa"));
    await payOnSandbox(/Pay NPR\s700\.00 with eSewa/, ["Pay with eSewa", "Pay"]);
    let receipt = said("Top-up successful");
    await receipt.waitFor({ timeout: 15_000 });
    expect(await receipt.textContent()).toMatch(/with eSewa/);
    await remindFrom(receipt);
    await tapApp(buttonIn(receipt, "🛒 Renew in the shop"));
    await leftOverMethod(confirm, /Pay with Khalti/);
    await tap(buttonIn(receipt, "Top up another"));
    await tap(buttonIn(said("Top up one of your connections again"), "➕ Another customer"));

    // Khalti paid, from the saved connection; Remind me; Done.
    confirm = await toConfirm("saved");
    await tap(buttonIn(confirm, "📱 Pay with Khalti"));
    await payOnSandbox(/Pay NPR\s700\.00 with Khalti/, ["Pay"]);
    receipt = said(/Top-up successful[\s\S]*with Khalti/);
    await receipt.waitFor({ timeout: 15_000 });
    await remindFrom(receipt);
    await tap(buttonIn(receipt, "Done"));

    // A card: the invoice paid in the form; Remind me; the paid invoice keeps no Cancel.
    confirm = await toConfirm("saved");
    await tap(buttonIn(confirm, "💳 Pay by card"));
    const card = page.locator("#messages .message:has(.invoice)").last();
    await openCheckout(buttonIn(card, "💳 Pay NPR 700.00"));
    const form = page.getByRole("dialog", { name: "Checkout" });
    await form.getByRole("button", { name: "Pay NPR 700.00" }).click();
    await form.waitFor({ state: "hidden" });
    receipt = said(/Top-up successful[\s\S]*by card/);
    await receipt.waitFor({ timeout: 15_000 });
    await expect(buttonIn(card, "✓ Paid").isDisabled()).resolves.toBe(true);
    await remindFrom(receipt);
    expect
      .soft(await card.getByRole("button", { name: "Cancel" }).count(), "a paid invoice's Cancel")
      .toBe(0);
    await leftOverMethod(confirm, /Pay with eSewa/);

    // The reminders: one cancelled, then all; every other command of the menu.
    await command("user", "reminders");
    const list = said("Your reminders:");
    await tap(list.getByRole("button", { name: /^✖ Gold/ }).first());
    await tap(buttonIn(list, "✖ Cancel all"));
    for (const name of ["history", "help", "cancel"]) await command("user", name);
    await command("user", "language");
    await tap(buttonIn(said("Choose your language"), /नेपाली/));
    await command("user", "language");
    await tap(buttonIn(said(/भाषा छान्नुहोस्|Choose your language/), /English/));
    await command("user", "topup");
    await tapApp(buttonIn(said("Top up one of your connections again"), "🛒 Open the shop"));
    await tap(buttonIn(said("Top up one of your connections again"), "🗑 Forget these"));
    await command("user", "forget");
    await sweep();
    expect(playground.sandbox.topups).toHaveLength(3);
  }, 90_000);

  it("admin: every command of its menu and every button they bring; the report's CSV a file card, its chart an image", async () => {
    await switchTo("admin");
    // The empty chat's own button, then a broadcast to everyone.
    await tap(page.locator("#messages .empty-action"));
    await said("Send the message to broadcast").waitFor();
    await type("Festival offer: every HD package 20% off this week.");
    await tap(buttonIn(said("Who should receive it?"), "Everyone"));
    await tap(buttonIn(said("Above is the preview"), "✅ Send"));
    await said("Broadcast finished").waitFor();

    // /report: the summary, the CSV as a file card whose link saves the bot's bytes, the chart.
    await command("admin", "report");
    const file = page.locator("#messages .message:has(.document)").last();
    await file.waitFor();
    const name = (await file.locator(".document-name").textContent()) ?? "";
    expect(name).toMatch(/^report-\d{4}-\d{2}-\d{2}\.csv$/);
    await expect(file.locator(".document-size").textContent()).resolves.toMatch(
      /^\d+(\.\d)? k?B · CSV$/,
    );
    const link = file.locator("a.document-name");
    const fileId = decodeURIComponent((await link.getAttribute("href"))?.split("/").at(-1) ?? "");
    shown.set("document: download", name);
    tapped.add("document: download");
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(name);
    const saved = await readFile(await download.path());
    expect(saved.equals(playground.emulator.file(fileId)?.upload?.bytes ?? Buffer.alloc(0))).toBe(
      true,
    );
    for (const topup of playground.sandbox.topups) expect(saved.toString()).toContain(topup.txnId);
    const chart = page.locator("#messages .message:has(.photo-image)").last();
    const image = chart.locator("img.photo-image");
    await expect
      .poll(() =>
        image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(100);
    await expect(image.getAttribute("alt")).resolves.toMatch(/^Charged per day/);
    // The caption under the image.
    const order = await chart
      .locator(".bubble > *")
      .evaluateAll((parts) => parts.map((part) => part.className));
    expect(order.indexOf("photo-link")).toBeLessThan(order.indexOf("text"));
    await expect(chart.locator(".text").textContent()).resolves.toMatch(/^Charged per day/);

    // Every other command of the admin's menu.
    await command("admin", "balance");
    // Amounts with their currency, as everywhere else.
    const balance = said("Expected balance at the provider");
    expect.soft(await balance.textContent(), "/balance's amounts").toMatch(/NPR/);
    for (const name of ["reminder_stats", "reconcile", "resolve", "history", "reminders"]) {
      await command("admin", name);
    }
    for (const name of ["forget", "help", "start", "topup", "cancel"]) await command("admin", name);
    await command("admin", "language");
    await tap(buttonIn(said("Choose your language"), /English/));
    await command("admin", "broadcast");
    await said("Send the message to broadcast").waitFor();
    await command("admin", "cancel");
    await command("admin", "plans");
    await tap(buttonIn(said("Who should receive it?"), "Everyone"));
    await tap(buttonIn(said("Above is the preview"), "Cancel"));
    await command("admin", "broadcast_cancel");
    await sweep();
  }, 60_000);

  it("support group: every command of its menu and the card's Refresh", async () => {
    await switchTo("support");
    await tap(page.locator("#messages .empty-action"));
    const card = said("Customer 1000002");
    await tap(buttonIn(card, "🔄 Refresh"));
    await command("support", "lookup");
    await command("support", "txn", playground.sandbox.topups[0]?.txnId);
    await said(playground.sandbox.topups[0]?.txnId ?? "-")
      .last()
      .waitFor();
    await command("support", "recent");
    // Every line of /recent has its fields: none left empty between two separators.
    const recent = said(playground.sandbox.topups[0]?.txnId ?? "-");
    expect.soft(await recent.textContent(), "/recent's lines").not.toMatch(/·\s*·/);
    await sweep();
  }, 30_000);

  it("in Nepali: every label of the page, the card form and ✓ Paid, the bot's replies", async () => {
    await switchTo("user");
    await page.locator("#language").selectOption("ne");
    await page.locator(".toast", { hasText: "नेपाली" }).waitFor();
    const texts = await page.evaluate(() =>
      (globalThis as unknown as { probe: Probe }).probe.texts(),
    );
    expect(Object.keys(texts.ne).sort()).toEqual(Object.keys(texts.en).sort());
    // No English label of the page is left: its text and its attributes, outside the chat and
    // the sandbox's data (names, notes).
    const english = Object.entries(texts.en)
      .filter(([key, text]) => texts.ne[key] !== text && !text.includes("{"))
      .map(([, text]) => text);
    const left = await page.evaluate(
      (labels) => (globalThis as unknown as { probe: Probe }).probe.shows(labels),
      english,
    );
    expect(left).toEqual([]);
    await expect(page.locator("html").getAttribute("lang")).resolves.toBe("ne");

    // A card purchase in Nepali: the form, "✓ Paid" and the payment line in Nepali. The
    // subscriber chose English with /language above: the bot follows that choice.
    await command("user", "language");
    await tap(buttonIn(said(/Choose your language/), /नेपाली/));
    await command("user", "topup");
    await tap(page.locator(".reply-button", { hasText: "मेरो फोन नम्बर दिनुहोस्" }));
    await tap(buttonIn(said("8000000021"), /8000000021/));
    const menu = byId(await said(/प्याकेज छान्नुहोस्/).getAttribute("data-message-id"));
    await tap(buttonIn(menu, "मासिक"));
    await tap(menu.getByRole("button", { name: /Gold \(मासिक\)/ }).first());
    await tap(buttonIn(menu, "💳 कार्डबाट तिर्नुहोस्"));
    const invoice = page.locator("#messages .message:has(.invoice)").last();
    await openCheckout(invoice.locator(".pay-button"));
    const form = page.getByRole("dialog", { name: "भुक्तानी" });
    await expect(form.getByLabel("कार्ड नम्बर").inputValue()).resolves.toBe("4242 4242 4242 4242");
    await expect(form.locator(".checkout-test").textContent()).resolves.toBe("परीक्षण मोड");
    // The amount as the bot writes it in Nepali, on the invoice and in the form.
    await expect(invoice.locator(".invoice-amount").textContent()).resolves.toMatch(
      /^नेरू\s७००\.००$/,
    );
    const paidLines = page.locator("#messages .message.service");
    const paidBefore = await paidLines.count();
    await form.getByRole("button", { name: /^नेरू\s७००\.०० तिर्नुहोस्$/ }).click();
    await form.waitFor({ state: "hidden" });
    await expect(paidLines.nth(paidBefore).textContent()).resolves.toMatch(
      /^तपाईंले Top-up Bot लाई .+ सफलतापूर्वक पठाउनुभयो$/,
    );
    await expect(invoice.locator(".pay-button").textContent()).resolves.toBe("✓ तिरियो");
    const receipt = said("रिचार्ज सफल भयो");
    await receipt.waitFor({ timeout: 15_000 });
    const answers = await tap(buttonIn(receipt, "🔔 सकिनुअघि सम्झाउनुहोस्"));
    expect(answers.join(" ")).toMatch(/सम्झाउनेछौं/);
    await page.locator("#language").selectOption("en");
    await page.locator(".toast", { hasText: "English" }).waitFor();
  }, 40_000);

  it("left no button untapped, and met no error reply, page error or error logged", async () => {
    for (const role of ROLES) {
      await switchTo(role);
      await sweep();
    }
    const untapped = [...shown].filter(([kind]) => !tapped.has(kind));
    expect(untapped.map(([kind, label]) => `${kind} (${label})`)).toEqual([]);
    expect(problems).toEqual([]);
    const errors = logs.lines().filter((line) => /"level":(50|60)/.test(line));
    expect(errors).toEqual([]);
  }, 30_000);
});
