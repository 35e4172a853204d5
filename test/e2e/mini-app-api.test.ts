// The Mini App's API (PUBLIC_URL/app/api/) against the real bot, the emulator, the provider,
// Khalti and eSewa sandboxes, Redis and PostgreSQL: every call is the user's whom Telegram's
// initData names, and nothing is done for a call without it; a purchase started in the app goes
// through the chat's services, is paid in place (the card's invoice link, Khalti's and eSewa's
// pages), and ends in one top-up with its receipt in the chat.

import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEsewaSandbox, type EsewaSandbox } from "../../tools/esewa-sandbox/server.js";
import { createFonepaySandbox, type FonepaySandbox } from "../../tools/fonepay-sandbox/server.js";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { ESEWA_PRODUCT, ESEWA_SECRET } from "../support/esewa-gateways.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { appApi, initDataOf } from "../support/mini-app.js";
import { type Stack, startShopStack } from "../support/stack.js";
import { until } from "../support/wait.js";

const KHALTI_SECRET = "mini-app-khalti-secret";
const MAX_AGE_SECONDS = 600;
let stack: Stack;
let khalti: KhaltiSandbox;
let esewa: EsewaSandbox;
let fonepay: FonepaySandbox;
const FONEPAY = {
  merchantCode: "miniapp01",
  username: "mini-app-fonepay-user",
  password: "mini-app-fonepay-pass",
  secretKey: "mini-app-fonepay-secret",
};
let base: string;
let nextUser = 9800;

beforeAll(async () => {
  khalti = await createKhaltiSandbox({ secretKey: KHALTI_SECRET });
  esewa = await createEsewaSandbox();
  fonepay = await createFonepaySandbox(FONEPAY);
  ({ stack, base } = await startShopStack(
    "mini_app_api",
    {
      PAYMENT_MODE: "",
      PAYMENT_METHODS: "telegram,khalti,esewa,fonepay",
      FONEPAY_MERCHANT_CODE: FONEPAY.merchantCode,
      FONEPAY_USERNAME: FONEPAY.username,
      FONEPAY_PASSWORD: FONEPAY.password,
      FONEPAY_SECRET_KEY: FONEPAY.secretKey,
      FONEPAY_API_URL: fonepay.apiUrl,
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:miniapp",
      KHALTI_SECRET_KEY: KHALTI_SECRET,
      KHALTI_BASE_URL: khalti.url,
      ESEWA_PRODUCT_CODE: ESEWA_PRODUCT,
      ESEWA_SECRET_KEY: ESEWA_SECRET,
      ESEWA_FORM_URL: esewa.formUrl,
      ESEWA_STATUS_URL: `${esewa.url}/api/epay/transaction/status/`,
      PAYMENT_CHECK_SECONDS: "1",
      PAYMENT_WINDOW_SECONDS: "60",
      RETURN_PAGE_LIMIT: "100000",
      MINI_APP_AUTH_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS),
    },
    {},
    { preCheckoutTimeoutMs: 3_000 },
  ));
});
afterEach(() => {
  stack.sandbox.reset();
});
afterAll(async () => {
  await stack.stop();
  await khalti.close();
  await esewa.close();
  await fonepay.close();
});

const topups = () => stack.sandbox.topups.length;

/** One API call, with `initData` as the page sends it (none: no header at all). */
const api = (path: string, initData: string | undefined, body?: Record<string, unknown>) =>
  appApi(base, path, initData, body);

/** A subscriber who opened the chat, and the app's catalogue of 1000001's first connection. */
async function atCatalogue(): Promise<{
  user: ChatUser;
  auth: string;
  journey: string;
  renew: number;
}> {
  const user = stack.emulator.user({ id: ++nextUser, first_name: "App", language_code: "en" });
  await expectReply(user, () => user.sendText("/start"), /./);
  const auth = initDataOf(user.id);
  const found = await api("lookup", auth, { code: "1000001" });
  expect(found.status).toBe(200);
  const catalogue = await api("catalogue", auth, { ref: "found-0" });
  expect(catalogue.status).toBe(200);
  const bouquets = catalogue.body.bouquets as { index: number; renews: boolean }[];
  const renew = bouquets.find((b) => b.renews)?.index ?? 0;
  return { user, auth, journey: String(catalogue.body.journey), renew };
}

describe("the Mini App's API refuses whoever initData does not name", () => {
  it("answers 401 to no initData, a forged hash, an expired one, another token's, and a user id in the body, and does nothing", async () => {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "No", language_code: "en" });
    const offersBefore = khalti.payments().length;
    const good = initDataOf(user.id);
    const forged = good.replace(/hash=[0-9a-f]+/, `hash=${"0".repeat(64)}`);
    // Another user's id in a signed initData: the signature no longer holds.
    const impersonated = good.replace(
      encodeURIComponent(`"id":${user.id}`),
      encodeURIComponent(`"id":${user.id + 1}`),
    );
    expect(impersonated).not.toBe(good);
    const refusals = [
      await api("connections", undefined),
      await api("connections", forged),
      await api("connections", impersonated),
      await api("connections", initDataOf(user.id, MAX_AGE_SECONDS + 60)),
      await api("connections", initDataOf(user.id, 0, "424242:another-bot-token")),
      await api("lookup", undefined, { code: "1000001" }),
      await api("lookup", good, { code: "1000001", userId: user.id + 1 }),
      await api("purchases", forged, { journey: "x", bouquet: 0, method: "telegram" }),
    ];
    for (const refusal of refusals) {
      expect(refusal.status).toBe(401);
      expect(refusal.body).toEqual({ error: "unauthorized" });
      expect(refusal.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(refusal.headers.get("cache-control")).toBe("no-store");
    }
    // Nothing looked up, nothing offered, nothing recorded.
    expect(khalti.payments().length).toBe(offersBefore);
    expect(await purchasesOf(stack.env.DATABASE_URL ?? "", user.id)).toEqual([]);
    expect(user.messages()).toEqual([]);
  });

  it("shows a typed code's customer masked, as the chat does, and keeps a listing to its user", async () => {
    const { auth, journey } = await atCatalogue();
    const found = await api("lookup", auth, { code: "1000001" });
    expect(JSON.stringify(found.body)).toContain("••••");
    expect(JSON.stringify(found.body)).not.toContain("8000000011");
    // Another user naming this user's listing: as if there were none, and nothing is offered.
    const other = stack.emulator.user({ id: ++nextUser, first_name: "Ot", language_code: "en" });
    const before = khalti.payments().length;
    const stolen = await api("purchases", initDataOf(other.id), {
      journey,
      bouquet: 0,
      method: "khalti",
    });
    expect(stolen.status).toBe(404);
    expect(khalti.payments().length).toBe(before);
    expect(await purchasesOf(stack.env.DATABASE_URL ?? "", other.id)).toEqual([]);
  });
});

describe("the Mini App's calls are limited per user as the chat's updates are", () => {
  it("answers 429 past FLOOD_LIMIT in its window, to that user only", async () => {
    const busy = initDataOf(++nextUser);
    const statuses: number[] = [];
    // The chat's FLOOD_LIMIT (30 in 10 s by default), and some.
    for (let call = 0; call < 35; call++) statuses.push((await api("reminders", busy)).status);
    expect(statuses.slice(0, 30).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(30)).toEqual([429, 429, 429, 429, 429]);
    const refused = await api("reminders", busy);
    expect(refused.body).toEqual({ error: "too-many" });
    expect((await api("reminders", initDataOf(++nextUser))).status).toBe(200);
  });
});

describe("the Mini App's page and its ways in", () => {
  it("serves the page under PUBLIC_URL/app/ with its own script only, its texts in English and Nepali", async () => {
    const page = await fetch(`${base}/app/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors https://web.telegram.org");
    expect(csp).not.toContain("unsafe-inline");
    // Its script and styles are in the page (no round trip before the first API call), allowed
    // by their hashes alone: exactly the built files' texts.
    const html = await page.text();
    const script = await (await fetch(`${base}/app/app.js`)).text();
    const style = await (await fetch(`${base}/app/app.css`)).text();
    const sha = (text: string) => createHash("sha256").update(text).digest("base64");
    expect(html).toContain(`<script type="module">${script}</script>`);
    expect(html).toContain(`<style>${style}</style>`);
    expect(html).not.toContain('src="app.js"');
    expect(csp).toContain(`script-src 'self' 'sha256-${sha(script)}'`);
    expect(csp).toContain(`style-src 'self' 'sha256-${sha(style)}'`);
    expect((await fetch(`${base}/app/app.js`)).headers.get("content-type")).toContain("javascript");
    const en = (await (await fetch(`${base}/app/texts.json?lang=en`)).json()) as Record<
      string,
      string
    >;
    const ne = (await (await fetch(`${base}/app/texts.json?lang=ne`)).json()) as Record<
      string,
      string
    >;
    expect(en["app-title"]).toBe("Shop");
    expect(ne["app-title"]).toBe("पसल");
    expect(Object.keys(ne).sort()).toEqual(Object.keys(en).sort());
  });

  it("sets the chat's menu button to the app and offers it under /start", async () => {
    await until(() => stack.emulator.calls("setChatMenuButton").length > 0, 3_000);
    const [menu] = stack.emulator.calls("setChatMenuButton");
    expect(JSON.stringify(menu?.payload)).toContain(`${base}/app/`);
    const user = stack.emulator.user({ id: ++nextUser, first_name: "St", language_code: "en" });
    const welcome = await expectReply(user, () => user.sendText("/start"), /./);
    const buttons = welcome.reply_markup?.inline_keyboard.flat() ?? [];
    const shop = buttons.find((b) => "web_app" in b);
    expect(shop?.text).toBe("🛒 Open the shop");
    expect(shop && "web_app" in shop ? shop.web_app?.url : "").toBe(`${base}/app/`);
  });
});

describe("the connections of the contact shared in the chat", () => {
  interface Listed {
    ref: string;
    service: string;
    id: string;
    name: string;
    subscriptions?: { name: string; end: string | null; relative: string | null }[] | null;
  }
  const SITA = "9851000002";
  const SITA_CONNECTIONS = ["8000000021", "8000000022", "8000000023"];
  const connectionsOf = async (auth: string) => {
    const listed = await api("connections", auth);
    expect(listed.status).toBe(200);
    return { contact: listed.body.contact, connections: listed.body.connections as Listed[] };
  };

  it("lists the shared number's connections in full, each with its subscriptions and end dates, as the chat shows a proved lookup", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Sita",
      language_code: "en",
      phone_number: SITA,
    });
    const auth = initDataOf(user.id);
    expect(await connectionsOf(auth)).toEqual({ contact: "none", connections: [] });
    const ask = await expectReply(user, () => user.sendText("/topup"), "Whose package");
    expect(ask.text).toContain("kept for the shop");
    const choice = await expectReply(
      user,
      () => user.tapReplyButton("📱 Share my phone number"),
      "Which connection",
    );
    // The chat's proved lookup: ids and name in full.
    expect(user.inlineButtons(choice).flat()).toEqual(
      SITA_CONNECTIONS.map((id, i) => `TV ${id} · ${i < 2 ? "active" : "inactive"}`),
    );
    const shown = await connectionsOf(auth);
    expect(shown.contact).toBe("found");
    expect(shown.connections.map((c) => c.id)).toEqual(SITA_CONNECTIONS);
    // Each ref names its place and the number's kept customer (an old page's are refused).
    const refs = shown.connections.map((c) => c.ref);
    expect(refs).toHaveLength(3);
    for (const [index, ref] of refs.entries()) {
      expect(ref).toMatch(new RegExp(`^contact-${index}-[0-9a-f]+$`));
    }
    expect(new Set(shown.connections.map((c) => c.name))).toEqual(new Set(["Sita S."]));
    expect(JSON.stringify(shown)).not.toContain("•");
    expect(JSON.stringify(shown)).not.toContain("Sharma");
    // Each with its subscriptions and their end dates, the ones the chat shows.
    const menu = await expectReply(user, () => user.press(/8000000021/), "Choose a package");
    const [first] = shown.connections;
    expect(first?.subscriptions?.length).toBe(2);
    for (const { name, end, relative } of first?.subscriptions ?? []) {
      expect(end).toMatch(/\d{4}/);
      // "• Gold HD – until 27 Mar 2027, 23:59 (UTC), expires in 120 days"
      expect(menu.text).toMatch(new RegExp(`• ${name} – until ${end}.*, ${relative}\n`));
    }
    expect(first?.subscriptions?.map((s) => s.relative)).toEqual([
      "expires in 120 days",
      "expired 5 days ago",
    ]);
    for (const connection of shown.connections) {
      expect(connection.subscriptions?.length).toBeGreaterThan(0);
      expect(connection.subscriptions?.every((s) => s.end !== null)).toBe(true);
    }
    // Opened: the catalogue of the user's own connection, in full, as the chat's.
    const catalogue = await api("catalogue", auth, { ref: refs[1] });
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.customer).toBe("Sita S.");
    expect(catalogue.body.connection).toEqual({ service: "tv", id: "8000000022" });
    expect(catalogue.body.subscriptions).toEqual(shown.connections[1]?.subscriptions);
    // Another user cannot open it.
    const stranger = initDataOf(user.id + 5000);
    expect((await api("catalogue", stranger, { ref: refs[1] })).status).toBe(404);
  });

  it("keeps no one else's contact: a forwarded one, or another's shared under /topup", async () => {
    const owner = stack.emulator.user({
      id: ++nextUser,
      first_name: "Own",
      language_code: "en",
      phone_number: SITA,
    });
    await expectReply(owner, () => owner.sendText("/start"), /./);
    const card = owner.sendContact();
    await owner.waitForText("Which connection");
    const other = stack.emulator.user({ id: ++nextUser, first_name: "Fw", language_code: "en" });
    await expectReply(other, () => other.forward(card), "your own phone number");
    await expectReply(other, () => other.sendText("/topup"), "Whose package");
    await expectReply(
      other,
      () => other.sendContact({ phone_number: SITA, user_id: owner.id }),
      "your own phone number",
    );
    expect(await connectionsOf(initDataOf(other.id))).toEqual({
      contact: "none",
      connections: [],
    });
    expect((await api("catalogue", initDataOf(other.id), { ref: "contact-0" })).status).toBe(404);
  });

  it("starts again from a contact shared while the chat asks which connection (the app's request, say)", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Rs",
      language_code: "en",
      phone_number: SITA,
    });
    await expectReply(user, () => user.sendText("/topup 1000002"), "Which connection");
    // Typed: masked. Then their own number: in full, and kept for the app.
    expect(user.inlineButtons().flat()[0]).toContain("••••0021");
    const again = await expectReply(user, () => user.sendContact(), "Which connection");
    expect(user.inlineButtons(again).flat()[0]).toBe("TV 8000000021 · active");
    expect(user.messages().some((m) => m.text?.includes("tap one of the buttons"))).toBe(false);
    expect((await connectionsOf(initDataOf(user.id))).contact).toBe("found");
  });

  // Review of #40's shared number, finding 5.
  it("looks the number up once within the chat's LOOKUP_LIMIT: opening the app again reuses it", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Lm",
      language_code: "en",
      phone_number: "9801000003",
    });
    const auth = initDataOf(user.id);
    const lookups = () =>
      stack.sandbox.requests.filter((r) => r.operation === "get-customer-information").length;
    // The chat's lookup of the shared number is the first of the user's 20, kept for the shop.
    await expectReply(user, () => user.sendContact(), "Choose a package");
    const before = lookups();
    const answers: unknown[] = [];
    for (let call = 0; call < 20; call++) answers.push((await connectionsOf(auth)).contact);
    expect(answers).toEqual(Array(20).fill("found"));
    expect(lookups()).toBe(before);
    // The chat's lookups are the user's still.
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
  });

  it("forgets the number with /forget, and the app lists its connections no more", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Fg",
      language_code: "en",
      phone_number: "9861000004",
    });
    const auth = initDataOf(user.id);
    // Shared outside /topup (the attachment menu, or the app's request): as under /topup.
    await expectReply(user, () => user.sendContact(), "Which connection");
    const listed = (await connectionsOf(auth)).connections;
    expect(listed.map((c) => c.id)).toEqual(["8000000041", "gita.karki"]);
    expect((await api("catalogue", auth, { ref: listed[0]?.ref })).status).toBe(200);
    await expectReply(user, () => user.sendText("/forget"), "nor the phone number you shared");
    expect(await connectionsOf(auth)).toEqual({ contact: "none", connections: [] });
    expect((await api("catalogue", auth, { ref: listed[0]?.ref })).status).toBe(404);
  });

  // Review of #40's shared number, the smaller observations: what the app opened from the number
  // ends with it.
  it("after /forget, a menu opened from the number is bought from no more, and an old page's ref opens nothing of another number", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Om",
      language_code: "en",
      phone_number: "9861000004",
    });
    const auth = initDataOf(user.id);
    await expectReply(user, () => user.sendContact(), "Which connection");
    const old = (await connectionsOf(auth)).connections.map((c) => c.ref);
    const menu = await api("catalogue", auth, { ref: old[0] });
    expect(menu.status).toBe(200);
    await expectReply(user, () => user.sendText("/forget"), "nor the phone number you shared");
    const bought = await api("purchases", auth, { journey: menu.body.journey, bouquet: 0 });
    expect(bought).toMatchObject({ status: 404, body: { error: "expired" } });
    // Another number of theirs, shared: the old page's refs name the old number's connections.
    await expectReply(
      user,
      () => user.sendContact({ phone_number: "9801000003" }),
      "Choose a package",
    );
    for (const ref of old) {
      expect((await api("catalogue", auth, { ref })).body.error).toBe("expired");
    }
    const now = (await connectionsOf(auth)).connections;
    expect(now).toHaveLength(1);
    expect((await api("catalogue", auth, { ref: now[0]?.ref })).status).toBe(200);
    expect(topups()).toBe(0);
  });
});

describe("the chat's menu button, in the chat's language", () => {
  const shop = (text: string) => ({ type: "web_app", text, web_app: { url: `${base}/app/` } });

  it("reads English by default, Nepali after /language, English again after switching back", async () => {
    await until(() => stack.emulator.calls("setChatMenuButton").length > 0, 3_000);
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Mb", language_code: "en" });
    await expectReply(user, () => user.sendText("/start"), /./);
    expect(user.menuButton()).toEqual(shop("Shop"));
    await expectReply(user, () => user.sendText("/language"), "Choose your language");
    await expectReply(user, () => user.press("नेपाली"), "भाषा नेपालीमा परिवर्तन भयो");
    expect(user.menuButton()).toEqual(shop("पसल"));
    // The chat's own button, set once: the next updates leave it be.
    const calls = stack.emulator.calls("setChatMenuButton").length;
    await expectReply(user, () => user.sendText("/help"), "/topup");
    expect(stack.emulator.calls("setChatMenuButton").length).toBe(calls);
    await expectReply(user, () => user.sendText("/language"), "आफ्नो भाषा छान्नुहोस्");
    await expectReply(user, () => user.press("English"), "Language set to English");
    expect(user.menuButton()).toEqual(shop("Shop"));
  });

  it("reads Nepali for a Nepali client from its first message", async () => {
    await until(() => stack.emulator.calls("setChatMenuButton").length > 0, 3_000);
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Np", language_code: "ne" });
    await expectReply(user, () => user.sendText("/start"), /./);
    expect(user.menuButton()).toEqual(shop("पसल"));
  });
});

describe("a purchase started in the Mini App", () => {
  it("paid by card through the invoice link: one top-up, the receipt in the chat, the status and history in the app", async () => {
    const { user, auth, journey, renew } = await atCatalogue();
    const started = await api("purchases", auth, { journey, bouquet: renew, method: "telegram" });
    expect(started.status).toBe(200);
    const invoice = String(started.body.invoice);
    expect(invoice).toMatch(/^https:\/\/t\.me\/\$/);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = await user.payInvoiceLink(invoice);
    expect(paid.kind).toBe("paid");
    const told = await receipt;
    expect(topups()).toBe(1);
    const id = String(started.body.purchase);
    // The receipt's "Renew in the shop" opens the app on this connection, for its buyer only.
    const inShop = (told.reply_markup?.inline_keyboard.flat() ?? []).find((b) => "web_app" in b);
    expect(inShop?.text).toBe("🛒 Renew in the shop");
    expect(inShop && "web_app" in inShop ? inShop.web_app?.url : "").toBe(
      `${base}/app/?renew=${encodeURIComponent(id)}`,
    );
    const again = await api("catalogue", auth, { ref: `purchase-${id}` });
    expect(again.status).toBe(200);
    expect((again.body.bouquets as unknown[]).length).toBeGreaterThan(0);
    const other = initDataOf(user.id + 1000);
    expect((await api("catalogue", other, { ref: `purchase-${id}` })).status).toBe(404);
    await until(async () => (await api(`purchases/${id}`, auth)).body.phase === "charged", 5_000);
    const history = await api("purchases", auth);
    expect((history.body.purchases as { id: string }[]).map((p) => p.id)).toContain(id);
    // Started in the app, it shows in the chat's /history too.
    const chatHistory = await expectReply(
      user,
      () => user.sendText("/history"),
      "Your last top-up",
    );
    expect(chatHistory.text).toContain("Telegram Payments");
    // The connection topped up is saved, and listed by the app as the chat lists it: found by a
    // typed code, so masked ("••••" and its end), never in full.
    const listed = await api("connections", auth);
    const saved = (listed.body.connections as { ref: string; id: string; proved: boolean }[]).find(
      (c) => c.ref === "saved-0",
    );
    expect(saved?.proved).toBe(false);
    expect(saved?.id).toMatch(/^••••\S{4,}$/);
    // Reminders as /reminders has them: none yet; set under the receipt, listed, cancelled.
    expect((await api("reminders", auth)).body).toEqual({ reminders: [] });
    user.press(/Remind me/);
    await until(
      async () => ((await api("reminders", auth)).body.reminders as []).length > 0,
      3_000,
    );
    const [reminder] = (await api("reminders", auth)).body.reminders as { id: string }[];
    const stranger = initDataOf(user.id + 2000);
    expect((await api("reminders", stranger, { cancel: reminder?.id })).body).toEqual({
      cancelled: false,
    });
    expect((await api("reminders", auth, { cancel: reminder?.id })).body).toEqual({
      cancelled: true,
    });
    // The same purchase again (a double tap): nothing new.
    const twice = await api("purchases", auth, { journey, bouquet: renew, method: "telegram" });
    expect(twice.status).toBe(409);
    expect(topups()).toBe(1);
  });

  it("paid through Khalti's page: one top-up, the receipt in the chat", async () => {
    const { user, auth, journey, renew } = await atCatalogue();
    // The chat's message of the link held: the app has its link all the same, without waiting
    // for Telegram's answer to that message (the offer is recorded before it is shown).
    const message = stack.emulator.holdNext("sendMessage", { chatId: user.id });
    const started = await api("purchases", auth, { journey, bouquet: renew, method: "khalti" });
    await message.reached;
    expect(user.messages().some((m) => m.text?.includes("with Khalti"))).toBe(false);
    message.release();
    await user.waitForText("with Khalti");
    expect(started.status).toBe(200);
    const pidx = khalti.payments().at(-1)?.pidx ?? "";
    expect(String(started.body.link)).toContain(pidx);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = await fetch(`${khalti.url}/pay/${pidx}/confirm`, {
      method: "POST",
      body: new URLSearchParams({ paid_by: "wallet", mobile: "9800000001" }),
      redirect: "manual",
    });
    expect(paid.status).toBe(302);
    await (await fetch(paid.headers.get("location") ?? "")).text();
    expect((await receipt).text).toContain("with Khalti");
    expect(topups()).toBe(1);
  });

  it("paid through eSewa's page: one top-up, the receipt in the chat", async () => {
    const { user, auth, journey, renew } = await atCatalogue();
    const started = await api("purchases", auth, { journey, bouquet: renew, method: "esewa" });
    expect(started.status).toBe(200);
    const link = String(started.body.link);
    expect(link.startsWith(`${base}/pay/esewa/`)).toBe(true);
    const uuid = link.split("/").at(-1) ?? "";
    // The pay page posts its signed form to eSewa; the buyer pays there and comes back.
    const page = await (await fetch(link)).text();
    const fields = [...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
      ([, name = "", value = ""]) => [name, value.replaceAll("&amp;", "&")] as [string, string],
    );
    const form = await fetch(esewa.formUrl, {
      method: "POST",
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
    expect(form.status).toBe(302);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    const paid = await fetch(`${esewa.url}/pay/${uuid}/confirm`, {
      method: "POST",
      redirect: "manual",
    });
    await (await fetch(paid.headers.get("location") ?? "")).text();
    expect((await receipt).text).toContain("with eSewa");
    expect(topups()).toBe(1);
  });

  it("started in the chat, finished in the app: the card's invoice link pays the chat's purchase once", async () => {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Ch", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    const invoice = user.waitForMessage((message) => message.invoice !== undefined);
    user.press(/Pay by card/);
    await invoice;
    const auth = initDataOf(user.id);
    const history = await api("purchases", auth);
    const [waiting] = history.body.purchases as { id: string; phase: string }[];
    expect(waiting?.phase).toBe("awaiting-payment");
    // Another user cannot pay it from their app.
    const other = await api("purchases", initDataOf(user.id + 1000), { purchase: waiting?.id });
    expect(other.status).toBe(404);
    const again = await api("purchases", auth, { purchase: waiting?.id });
    expect(again.status).toBe(200);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    expect((await user.payInvoiceLink(String(again.body.invoice))).kind).toBe("paid");
    await receipt;
    expect(topups()).toBe(1);
    // Paid: the chat's invoice is no longer payable, and the app says it is closed.
    expect((await api("purchases", auth, { purchase: waiting?.id })).status).toBe(409);
  });

  it("paid by Fonepay's QR, shown in the app as the chat shows it: one top-up, the receipt in the chat", async () => {
    const { user, auth, journey, renew } = await atCatalogue();
    const started = await api("purchases", auth, { journey, bouquet: renew, method: "fonepay" });
    expect(started.status).toBe(200);
    expect(String(started.body.qr)).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]{100,}$/);
    const prn = fonepay.payments().at(-1)?.prn ?? "";
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 8_000 });
    fonepay.pay(prn);
    await receipt;
    expect(topups()).toBe(1);
  });
});
