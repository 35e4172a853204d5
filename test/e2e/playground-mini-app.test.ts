// The Mini App in the offline playground, in a real browser (the system's Chromium, driven by
// playwright-core) as a newcomer uses it: /start's "🛒 Open the shop" opens the bot's app beside
// the chat (its initData signed by the playground's stand-in for Telegram), the subscriber finds
// a connection by a typed code (masked), searches the catalogue, confirms, pays by card through
// the stand-in's openInvoice, Khalti and eSewa through their pages (openLink), Fonepay's QR drawn
// in the app and paid on the Fonepay sandbox's page (the bank app), and sees the top-up end in
// the app and its receipt in the chat; a purchase started in the chat is paid from the app. The
// bot keeps its sessions in real Redis and its ledger on the tests' PostgreSQL server.
import { existsSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import jsQRModule from "jsqr";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type FrameLocator,
  type Page,
  type Route,
} from "playwright-core";
import { PNG } from "pngjs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Playground, startPlayground } from "../../tools/playground/playground.js";
import { captureLogs } from "../support/log-capture.js";
import { testDatabase } from "../support/postgres.js";
import { testRedis } from "../support/redis.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"];
/** jsqr is CommonJS: under Node's ESM loader its module is the function itself. */
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

let playground: Playground;
let redis: ReturnType<typeof testRedis>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH.`);
  }
  // As production runs: real Redis (keys of this file's own) and a PostgreSQL database.
  redis = testRedis("playground_mini_app");
  playground = await startPlayground({
    host: "127.0.0.1",
    port: 0,
    env: { LOG_LEVEL: "warn", REDIS_KEY_PREFIX: redis.prefix },
    paymentMode: "all",
    // Its own connection: the bot closes it when it stops, the cleanup's stays.
    redis: redis.redis.duplicate(),
    ledger: {
      kind: "postgres",
      url: await testDatabase("playground_mini_app"),
      poolSize: 4,
      statementTimeoutMs: 10_000,
    },
    logger: captureLogs("warn").logger,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(playground.url);
  await page.locator("body[data-ready='true']").waitFor();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await playground?.close();
  await redis?.cleanup();
});

/** The app inside its frame. */
const app = (): FrameLocator => page.frameLocator("#mini-app iframe");

/** /start, then its "🛒 Open the shop": the app beside the chat. */
async function openShop(): Promise<void> {
  // The app of an earlier test closed first, as a person closes it.
  const close = page.locator("#mini-app-close");
  if (await close.isVisible()) await close.click();
  await page.locator("#composer").fill("/start");
  await page.keyboard.press("Enter");
  await page.getByRole("button", { name: "🛒 Open the shop" }).last().click();
}

/** Finds 1000001 by its code (masked, as the chat shows a typed code) and opens its packages. */
async function toCatalogue(): Promise<void> {
  await app()
    .getByLabel(/Customer code/)
    .fill("1000001");
  await app().getByRole("button", { name: "Find" }).click();
  const connection = app()
    .getByRole("button", { name: /^TV ••••/ })
    .first();
  await connection.waitFor();
  expect(await app().locator("body").textContent()).not.toContain("8000000011");
  await connection.click();
}

it("buys through the Mini App by card: the receipt in the app and in the chat", async () => {
  // Its own connections first: none saved yet; found by a typed code, masked.
  await openShop();
  await toCatalogue();
  // The catalogue in one list: the period and add-on filters narrow it, and so does search.
  const rows = () => app().locator(".bouquets li");
  await rows().first().waitFor();
  const packages = await rows().allTextContents();
  await app().getByLabel("Period").selectOption({ label: "Quarterly" });
  const quarterly = await rows().allTextContents();
  expect(quarterly.length).toBeGreaterThan(0);
  expect(quarterly.length).toBeLessThan(packages.length);
  for (const row of quarterly) expect(row).toContain("Quarterly");
  await app().getByLabel("Period").selectOption({ label: "Any period" });
  // Add-ons apart from the packages they add to: another list, none of the packages in it.
  await app().getByLabel("Add-ons only").check();
  const addOns = await rows().allTextContents();
  expect(addOns.length).toBeGreaterThan(0);
  expect(addOns.filter((row) => packages.includes(row))).toEqual([]);
  await app().getByLabel("Add-ons only").uncheck();
  expect(await rows().allTextContents()).toEqual(packages);
  await app().getByLabel("Search packages").fill("Gold");
  const gold = app().getByRole("button", { name: /Gold/ }).first();
  await gold.waitFor();
  expect(await app().locator(".bouquets li").count()).toBeGreaterThan(0);
  for (const name of await app().locator(".bouquets li").allTextContents()) {
    expect(name).toContain("Gold");
  }
  await mkdir("test-output", { recursive: true });
  await page.locator("#mini-app").screenshot({ path: "test-output/mini-app.png" });
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    await copyFile("test-output/mini-app.png", "docs/images/mini-app.png");
  }
  await gold.click();
  await app().getByRole("heading", { name: "Please confirm" }).waitFor();
  await app()
    .getByRole("button", { name: /Pay by card/ })
    .click();
  await app().getByText("✅ Top-up successful").waitFor({ timeout: 20_000 });
  await page.locator("#messages").getByText("Top-up successful").last().waitFor();
  expect(playground.sandbox.topups).toHaveLength(1);
  expect(problems).toEqual([]);
}, 60_000);

it("is usable one-handed and by a screen reader: thumb-sized targets, every field labelled, each screen's heading focused", async () => {
  await openShop();
  await toCatalogue();
  await app().getByLabel("Search packages").waitFor();
  // Run in the app's frame (a string: the tests are typed without the DOM's types).
  const found = (await app()
    .locator("body")
    .evaluate(`(() => {
      const shown = (element) => element.offsetParent !== null;
      const targets = [
        ...document.querySelectorAll("button, select, input:not([type=checkbox]), label.check"),
      ].filter(shown);
      const fields = [...document.querySelectorAll("input, select")].filter(shown);
      return {
        targets: targets.length,
        small: targets
          .filter((t) => t.getBoundingClientRect().height < 44)
          .map((t) => t.outerHTML.slice(0, 80)),
        unlabelled: fields.filter((f) => (f.labels?.length ?? 0) === 0).map((f) => f.id),
        focused: document.activeElement?.tagName,
      };
    })()`)) as { targets: number; small: string[]; unlabelled: string[]; focused: string };
  expect(found.targets).toBeGreaterThan(3);
  expect(found).toMatchObject({ small: [], unlabelled: [], focused: "H1" });
});

/** The shop opened, at Gold's confirm screen. */
async function toGold(): Promise<void> {
  await openShop();
  await toCatalogue();
  await app().getByRole("button", { name: /Gold/ }).first().click();
}

/** A payment system's page: its buttons tapped in order, each a form that loads the next page. */
async function tapThrough(tab: Page, steps: string[]): Promise<void> {
  for (const step of steps) {
    await tab.getByRole("button", { name: step, exact: true }).waitFor();
    await Promise.all([
      tab.waitForNavigation(),
      tab.getByRole("button", { name: step, exact: true }).click(),
    ]);
  }
}

/** Pays through a payment system's page that openLink opened in a new tab (its buttons in order). */
async function payOnPage(method: RegExp, steps: string[]): Promise<void> {
  const before = playground.sandbox.topups.length;
  await toGold();
  const [tab] = await Promise.all([
    context.waitForEvent("page"),
    app().getByRole("button", { name: method }).click(),
  ]);
  await tapThrough(tab, steps);
  await tab.getByText("Payment received").waitFor();
  await tab.close();
  await app().getByText("✅ Top-up successful").waitFor({ timeout: 20_000 });
  expect(playground.sandbox.topups).toHaveLength(before + 1);
  expect(problems).toEqual([]);
}

it("pays with Khalti through its page (openLink): one more top-up, the receipt in the chat", async () => {
  await payOnPage(/Pay with Khalti/, ["Pay"]);
}, 60_000);

it("pays with eSewa through the bot's pay page and eSewa's (openLink): one more top-up", async () => {
  await payOnPage(/Pay with eSewa/, ["Pay with eSewa", "Pay"]);
}, 60_000);

/** The text a QR image (a data: URL of a PNG) holds, read by another library (as a bank app). */
function qrTextOf(dataUrl: string): string | undefined {
  const image = PNG.sync.read(
    Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ""), "base64"),
  );
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

it("pays Fonepay's QR shown in the app: paid on the sandbox's page, the app follows to the receipt, also in the chat", async () => {
  const fonepay = playground.fonepay;
  if (!fonepay) throw new Error("the playground runs without Fonepay");
  const before = playground.sandbox.topups.length;
  await toGold();
  await app()
    .getByRole("button", { name: /Pay with Fonepay QR/ })
    .click();
  // The QR in the app: an image the browser drew, holding the QR text the sandbox issued.
  const qr = app().getByRole("img", { name: /Fonepay QR/ });
  await qr.waitFor();
  await expect
    .poll(() => qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth))
    .toBeGreaterThan(100);
  const issued = fonepay.payments().at(-1);
  expect(issued?.status).toBe("CREATED");
  expect(qrTextOf((await qr.getAttribute("src")) ?? "")).toBe(issued?.qrMessage);
  await app().getByText("Waiting for your payment…").waitFor();

  // The bank app: the sandbox's page of that QR, found in its list; scanned, then paid.
  const bank = await context.newPage();
  bank.on("pageerror", (error) => problems.push(`${bank.url()}: ${error.message}`));
  await bank.goto(fonepay.url);
  await bank.getByRole("link", { name: issued?.prn ?? "-" }).click();
  await tapThrough(bank, ["Scan", "Pay"]);
  await bank.getByText("Status: success").waitFor();
  await bank.close();

  // The app, left as it was, follows the purchase to its end; the receipt in the chat too.
  await app().getByText("✅ Top-up successful").waitFor({ timeout: 20_000 });
  await app().getByText("The receipt is also in the chat.").waitFor();
  // Paid, the QR is no longer offered (the chat's says "do not pay this QR" by then).
  expect(await qr.count()).toBe(0);
  await page
    .locator("#messages .message", { hasText: /Top-up successful[\s\S]*with Fonepay QR/ })
    .last()
    .waitFor();
  expect(playground.sandbox.topups).toHaveLength(before + 1);
  expect(problems).toEqual([]);
}, 60_000);

it("left while its QR waits, the progress screen draws nothing on the next one when the purchase ends", async () => {
  const fonepay = playground.fonepay;
  if (!fonepay) throw new Error("the playground runs without Fonepay");
  // The app's first question about the purchase held until the purchase has ended.
  const status = /\/app\/api\/purchases\/[^/?]+$/;
  const held = new Promise<Route>((resolve) => void context.route(status, resolve));
  await openShop();
  await toCatalogue();
  await app().getByRole("button", { name: /Gold/ }).first().click();
  await app()
    .getByRole("button", { name: /Pay with Fonepay QR/ })
    .click();
  await app()
    .getByRole("img", { name: /Fonepay QR/ })
    .waitFor();
  const asked = await held;
  // The subscriber looks at their history while paying from the bank's app.
  await app().getByRole("button", { name: "History" }).click();
  await app().getByRole("heading", { name: "History" }).waitFor();
  await app()
    .locator("main")
    .evaluate((main) => {
      type Added = { addedNodes: Iterable<{ textContent: string | null }> }[];
      const page = globalThis as unknown as {
        added: string[];
        MutationObserver: new (
          seen: (records: Added) => void,
        ) => { observe(node: unknown, options: object): void };
      };
      page.added = [];
      new page.MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) page.added.push(node.textContent ?? "");
        }
      }).observe(main, { childList: true, subtree: true });
    });
  fonepay.pay(fonepay.payments().at(-1)?.prn ?? "-");
  await page
    .locator("#messages .message", { hasText: /Top-up successful[\s\S]*with Fonepay QR/ })
    .last()
    .waitFor();
  // The held answer ("charged") reaches the progress screen's loop; then another screen is
  // drawn (its own round trip after that answer), and what was added to the history is read.
  await asked.continue();
  await context.unroute(status);
  await (await asked.request().response())?.finished();
  await app().getByRole("button", { name: "Reminders" }).click();
  await app().getByRole("heading", { name: "Reminders" }).waitFor();
  const added = await app()
    .locator("main")
    .evaluate(() => (globalThis as unknown as { added: string[] }).added);
  expect(added.join("\n")).not.toContain("The receipt is also in the chat.");
  expect(problems).toEqual([]);
}, 60_000);

it("started in the chat, finished in the app: the chat's card purchase paid from the app's History, once", async () => {
  const close = page.locator("#mini-app-close");
  if (await close.isVisible()) await close.click();
  const before = playground.sandbox.topups.length;
  // In the chat: 1000001's Gold renewal, confirmed, its card invoice sent, not paid there.
  await page.locator("#composer").fill("/topup 1000001");
  await page.keyboard.press("Enter");
  const menu = page.locator("#messages .message", { hasText: "Choose a package to buy:" }).last();
  await menu.waitFor();
  const menuId = await menu.getAttribute("data-message-id");
  const sameMenu = page.locator(`#messages .message[data-message-id="${menuId}"]`);
  await sameMenu.getByRole("button", { name: /Renew/ }).first().click();
  await sameMenu.filter({ hasText: "Please confirm your top-up" }).waitFor();
  const invoices = await page.locator("#messages .message:has(.invoice)").count();
  await sameMenu.getByRole("button", { name: "💳 Pay by card" }).click();
  await expect
    .poll(() => page.locator("#messages .message:has(.invoice)").count())
    .toBe(invoices + 1);
  // In the app: the same purchase in its History, waiting, paid from there.
  await openShop();
  await app().getByRole("button", { name: "History" }).click();
  await app().getByRole("heading", { name: "History" }).waitFor();
  const waiting = app().locator("li", { hasText: "Waiting for your payment" }).first();
  await waiting.getByRole("button", { name: "Pay" }).click();
  await app().getByText("✅ Top-up successful").waitFor({ timeout: 20_000 });
  await page.locator("#messages").getByText("Top-up successful").last().waitFor();
  expect(playground.sandbox.topups).toHaveLength(before + 1);
  expect(problems).toEqual([]);
}, 60_000);

it("speaks Nepali when switched, and takes Telegram's dark colours (opened from the menu button)", async () => {
  await page.emulateMedia({ colorScheme: "dark" });
  const close = page.locator("#mini-app-close");
  if (await close.isVisible()) await close.click();
  // The chat's menu button, as the bot set it at start.
  await page.locator("#menu-app").click();
  await app().getByRole("heading", { name: "My connections" }).waitFor();
  await app().getByRole("button", { name: "नेपाली" }).click();
  await app().getByRole("heading", { name: "मेरा कनेक्सनहरू" }).waitFor();
  expect(await app().locator("html").getAttribute("lang")).toBe("ne");
  // The stand-in passed the dark theme's bg_color (#212121): the page is drawn in it.
  const background = await app()
    .locator("body")
    .evaluate(
      (body) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(body).backgroundColor,
    );
  expect(background).toBe("rgb(33, 33, 33)");
  await app().getByRole("button", { name: "English" }).click();
  await app().getByRole("heading", { name: "My connections" }).waitFor();
  expect(problems).toEqual([]);
}, 60_000);

/** The app closed, as a person closes it to go back to the chat. */
async function closeApp(): Promise<void> {
  const close = page.locator("#mini-app-close");
  if (await close.isVisible()) await close.click();
}

/** Sends a command in the chat, as a person types it. */
async function say(text: string): Promise<void> {
  await closeApp();
  await page.locator("#composer").fill(text);
  await page.keyboard.press("Enter");
}

/** The app from the chat's menu button, a fresh one. */
async function openFromMenu(): Promise<void> {
  await closeApp();
  await page.locator("#menu-app").click();
}

/** The bot's messages in the chat that read `text`. */
const chatMessages = (text: string) => page.locator("#messages .message", { hasText: text });

it("lists the connections of the number shared in the chat, in full, with their end dates", async () => {
  // The playground's subscriber, Asha, has Sita's number (1000002, three TV connections).
  await page.emulateMedia({ colorScheme: "light" });
  await say("/topup");
  await page.locator(".reply-button", { hasText: "Share my phone number" }).click();
  await chatMessages("Which connection").first().waitFor();
  await openFromMenu();
  const own = app().locator("li", { has: app().getByRole("button", { name: /^TV 8000000021/ }) });
  await own.waitFor();
  // In full, as the chat shows a proved lookup; each connection with its subscriptions.
  expect(await own.getByRole("button").textContent()).toBe("TV 8000000021 · Sita S.");
  const lines = await own.locator(".subscriptions li").allTextContents();
  expect(lines).toEqual([
    expect.stringMatching(/^Gold HD · until \d+ \w+ \d{4} · expires in 120 days$/),
    expect.stringMatching(/^Sports HD · until \d+ \w+ \d{4} · expired 5 days ago$/),
  ]);
  for (const id of ["8000000022", "8000000023"]) {
    const other = app().locator("li", { has: app().getByRole("button", { name: `TV ${id}` }) });
    expect(await other.locator(".subscriptions li").count()).toBeGreaterThan(0);
  }
  await mkdir("test-output", { recursive: true });
  await page.locator("#mini-app").screenshot({ path: "test-output/mini-app-connections.png" });
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    await copyFile("test-output/mini-app-connections.png", "docs/images/mini-app-connections.png");
  }
  // Opened: its packages, the customer named as the chat names them.
  await own.getByRole("button").click();
  await app().getByRole("heading", { name: "TV 8000000021" }).waitFor();
  await app().getByText("Sita S.", { exact: true }).waitFor();
  expect(problems).toEqual([]);
}, 60_000);

it("after /forget, offers to share the number from the app, and lists its connections once shared", async () => {
  await say("/forget");
  await chatMessages("nor the phone number you shared").first().waitFor();
  await openFromMenu();
  const share = app().getByRole("button", { name: "📱 Share my phone number" });
  await share.waitFor();
  expect(
    await app()
      .getByRole("button", { name: /^TV 8000000021/ })
      .count(),
  ).toBe(0);
  // Telegram sends the number to the bot as the person's message; the app then lists it.
  await share.click();
  await app()
    .getByRole("button", { name: /^TV 8000000021 · Sita S\.$/ })
    .waitFor();
  await chatMessages("Which connection").nth(1).waitFor();
  expect(problems).toEqual([]);
}, 60_000);
