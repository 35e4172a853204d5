// The shop as a Telegram Mini App: the subscriber's connections (their own shared number's, with
// subscriptions and end dates; saved ones; one found by a code), a connection's catalogue in one
// scrolling list (search, period and add-on filters), a confirm screen, paying in place (the
// card's invoice through openInvoice, Khalti's and eSewa's pages through openLink), the
// purchase's progress until the receipt, and the history. No framework: a few screens drawn
// with the DOM, every text set as text (nothing the server sends is read as HTML).
//
// Telegram's bridge is spoken directly (no script from elsewhere: the page's CSP is 'self'):
// the launch parameters arrive in the address's hash, events go out through postEvent (the
// mobile clients' TelegramWebviewProxy, else the parent window of the web clients), and come
// back through Telegram.WebView.receiveEvent. Who the user is, the server reads from initData.

type Texts = Record<string, string>;
type Json = Record<string, unknown>;

interface Bouquet {
  index: number;
  name: string;
  price: string;
  period: string | null;
  addOn: boolean;
  renews: boolean;
}

interface Catalogue {
  journey: string;
  customer: string;
  connection: { service: string; id: string };
  subscriptions: Subscription[];
  bouquets: Bouquet[];
}

interface Subscription {
  name: string;
  end: string | null;
  /** How far off the end is, in the app's language ("expired 5 days ago"). */
  relative: string | null;
}

/** A connection of the user's, as /connections lists it. */
interface Listed {
  ref: string;
  service: string;
  id: string;
  name: string;
  /** Those of the user's own shared number: their subscriptions (null: open it to see them). */
  subscriptions?: Subscription[] | null;
}

interface Connections {
  methods: string[];
  /** How the user's own shared number was looked up: "found", "none" (none kept), or why not. */
  contact: string;
  connections: Listed[];
}

interface Summary {
  id: string;
  phase: string;
  bouquet: string;
  price: string;
  renewedUntil: string | null;
}

/** Phases the purchase ends in, as the chat tells them. */
const ENDED = new Set(["charged", "not-charged", "unknown", "unpaid", "refund-due", "refunded"]);
const LANGUAGES = ["en", "ne"] as const;
/** The purchase's phase is asked this often while it is under way. */
const POLL_MS = 2_000;
/** After the user shared their number from here: asked this often, this many times, for it. */
const CONTACT_POLL_MS = 1_000;
const CONTACT_POLLS = 10;

const launch = new URLSearchParams(location.hash.slice(1));
const initData = launch.get("tgWebAppData") ?? sessionStorage.getItem("initData") ?? "";
sessionStorage.setItem("initData", initData);

/** Telegram's WebApp version is at least `wanted` ("6.9"). */
function versionAtLeast(wanted: string): boolean {
  const have = (launch.get("tgWebAppVersion") ?? "0").split(".").map(Number);
  const want = wanted.split(".").map(Number);
  for (let i = 0; i < want.length; i++) {
    const a = have[i] ?? 0;
    const b = want[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
/** requestContact (Bot API 6.9): the number is shared with the bot, in the chat. */
const canRequestPhone = versionAtLeast("6.9");

let texts: Texts = {};
let language: string = chooseLanguage();
let methods: string[] = [];
const main = document.getElementById("main") as HTMLElement;

// --- Telegram's bridge -------------------------------------------------------------------

declare global {
  interface Window {
    TelegramWebviewProxy?: { postEvent(type: string, data: string): void };
    Telegram?: { WebView?: { receiveEvent(type: string, data: unknown): void } };
  }
}

const listeners = new Map<string, (data: Json) => void>();

function postEvent(type: string, data: Json = {}): void {
  const proxy = window.TelegramWebviewProxy;
  if (proxy) proxy.postEvent(type, JSON.stringify(data));
  else window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "*");
}

function receive(type: string, data: unknown): void {
  listeners.get(type)?.((data ?? {}) as Json);
}
window.Telegram = { ...window.Telegram, WebView: { receiveEvent: receive } };
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  try {
    const { eventType, eventData } = JSON.parse(String(event.data)) as Json;
    if (typeof eventType === "string") receive(eventType, eventData);
  } catch {
    // Not the bridge's.
  }
});

/** Telegram's colours as CSS variables: light or dark as the client is. */
function applyTheme(params: Json): void {
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === "string" && /^#[0-9a-f]{3,8}$/i.test(value)) {
      document.documentElement.style.setProperty(`--tg-${key.replaceAll("_", "-")}`, value);
    }
  }
}
listeners.set("theme_changed", (data) => applyTheme((data.theme_params ?? {}) as Json));
try {
  applyTheme(JSON.parse(launch.get("tgWebAppThemeParams") ?? "{}") as Json);
} catch {
  // No theme: the stylesheet's own colours.
}

// --- Texts and the API ---------------------------------------------------------------------

function chooseLanguage(): string {
  const chosen = localStorage.getItem("language");
  if (chosen && (LANGUAGES as readonly string[]).includes(chosen)) return chosen;
  const user = new URLSearchParams(initData).get("user") ?? "{}";
  try {
    const code = String((JSON.parse(user) as Json).language_code ?? "");
    return code.toLowerCase().startsWith("ne") ? "ne" : "en";
  } catch {
    return "en";
  }
}

/** A text of the app (none has variables: what varies is shown beside it). */
const t = (key: string): string => texts[key] ?? key;

/** The texts the page carries (both languages), else asked for. */
async function loadTexts(): Promise<void> {
  const carried = document.getElementById("texts")?.textContent;
  texts = carried
    ? ((JSON.parse(carried) as Record<string, Texts>)[language] ?? {})
    : ((await (await fetch(`texts.json?lang=${language}`)).json()) as Texts);
  document.documentElement.lang = language;
  document.title = t("app-title");
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

async function api<T>(path: string, body?: Json): Promise<T> {
  const response = await fetch(`api/${path}`, {
    method: body ? "POST" : "GET",
    headers: {
      authorization: `tma ${initData}`,
      ...(body && { "content-type": "application/json" }),
    },
    ...(body && { body: JSON.stringify({ ...body, language }) }),
  });
  const answer = (await response.json()) as Json;
  if (!response.ok) throw new ApiError(response.status, String(answer.error ?? "error"));
  return answer as T;
}

// --- Drawing -------------------------------------------------------------------------------

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function button(label: string, onClick: () => void, className = ""): HTMLButtonElement {
  const node = el("button", { type: "button", className }, label);
  node.addEventListener("click", onClick);
  return node;
}

/** A new screen: its heading takes the focus (screen readers say where the user is). */
function screen(title: string, ...children: Node[]): void {
  const heading = el("h1", { tabIndex: -1 }, title);
  main.replaceChildren(heading, ...children);
  heading.focus();
}

function notice(text: string, role: "status" | "alert" = "status"): HTMLElement {
  const node = el("p", { className: `notice ${role}` }, text);
  node.setAttribute("role", role);
  return node;
}

/** An error's text, the general one for a code without its own. */
const errorText = (code: string): string =>
  t(`app-error-${code}`) === `app-error-${code}` ? t("app-error") : t(`app-error-${code}`);

function failed(error: unknown): void {
  main.append(notice(errorText(error instanceof ApiError ? error.code : "error"), "alert"));
}

/** Subscriptions and their end dates, as the catalogue and the user's own connections show them. */
function subscriptionList(list: Subscription[]): HTMLElement {
  const items = el("ul", { className: "subscriptions" });
  for (const s of list) {
    const end = s.end ? [`${t("app-until")} ${s.end}`, s.relative ?? ""] : [];
    items.append(el("li", {}, [s.name, ...end].filter(Boolean).join(" · ")));
  }
  return items;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function drawHeader(): void {
  const header = document.getElementById("header") as HTMLElement;
  const nav = el(
    "nav",
    {},
    button(t("app-connections"), () => void home()),
    button(t("app-history"), () => void history()),
    button(t("app-reminders"), () => void reminders()),
    button(t("app-language"), () => void switchLanguage(), "language"),
  );
  nav.setAttribute("aria-label", t("app-title"));
  header.replaceChildren(nav);
}

async function switchLanguage(): Promise<void> {
  language = language === "en" ? "ne" : "en";
  localStorage.setItem("language", language);
  await loadTexts();
  drawHeader();
  await home();
}

// --- Screens -------------------------------------------------------------------------------

/**
 * The user's connections: their own shared number's first, each with its subscriptions, then
 * the saved ones; a way to share the number when none is kept, and a code to find one by.
 * `sharing`: the user just shared their number from here (it reaches the bot through the chat,
 * so it is asked for a few times).
 */
async function home(sharing = false): Promise<void> {
  screen(t("app-connections"), el("p", {}, t("app-loading")));
  try {
    const path = `connections?language=${language}`;
    let answer = await (takeFirstConnections(path) ?? api<Connections>(path));
    for (let tries = 0; sharing && answer.contact === "none" && tries < CONTACT_POLLS; tries++) {
      await wait(CONTACT_POLL_MS);
      answer = await api<Connections>(path);
    }
    methods = answer.methods;
    const list = el("ul", { className: "list" });
    for (const connection of answer.connections) {
      const label = `${t(`app-service-${connection.service}`)} ${connection.id} · ${connection.name}`;
      const item = el(
        "li",
        {},
        button(label, () => void catalogue(connection.ref)),
      );
      if (connection.subscriptions) item.append(subscriptionList(connection.subscriptions));
      list.append(item);
    }
    const code = el("input", { id: "code", name: "code", autocomplete: "off", required: true });
    const form = el(
      "form",
      { className: "find" },
      el("label", { htmlFor: "code" }, t("app-code-label")),
      code,
      el("button", { type: "submit" }, t("app-find")),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void find(code.value);
    });
    screen(
      t("app-connections"),
      ...contactNotes(answer.contact, sharing),
      ...(answer.connections.length > 0 ? [list] : [el("p", {}, t("app-no-saved"))]),
      form,
    );
  } catch (error) {
    failed(error);
  }
}

/** What the user's own number came to: why nothing is listed, or the way to share it. */
function contactNotes(contact: string, sharing: boolean): HTMLElement[] {
  if (contact === "found") return [];
  if (contact === "customer-not-found") return [notice(t("app-contact-not-found"), "alert")];
  if (contact !== "none") return [notice(errorText(contact), "alert")];
  const notes: HTMLElement[] = sharing ? [notice(t("app-share-see-chat"), "alert")] : [];
  if (!canRequestPhone) return notes;
  return [
    ...notes,
    el("p", { className: "hint" }, t("app-share-hint")),
    button(t("app-share-phone"), () => postEvent("web_app_request_phone"), "primary"),
  ];
}
// Shared (Telegram sends the contact to the bot as the user's message): their connections.
listeners.set("phone_requested", (data) => {
  if (data.status === "sent") void home(true);
});

async function find(code: string): Promise<void> {
  try {
    const found = await api<{ name: string; connections: Json[] }>("lookup", { code });
    const list = el("ul", { className: "list" });
    for (const connection of found.connections) {
      const label = `${t(`app-service-${String(connection.service)}`)} ${String(connection.id)}`;
      list.append(
        el(
          "li",
          {},
          button(label, () => void catalogue(String(connection.ref))),
        ),
      );
    }
    screen(found.name, el("p", { className: "hint" }, t("app-masked-note")), list);
  } catch (error) {
    failed(error);
  }
}

async function catalogue(ref: string): Promise<void> {
  screen(t("app-catalogue"), el("p", {}, t("app-loading")));
  try {
    drawCatalogue(await api<Catalogue>("catalogue", { ref }));
  } catch (error) {
    failed(error);
  }
}

function drawCatalogue(shown: Catalogue): void {
  const search = el("input", { id: "search", type: "search" });
  const period = el("select", { id: "period" }, el("option", { value: "" }, t("app-all-periods")));
  for (const each of new Set(shown.bouquets.map((b) => b.period ?? ""))) {
    if (each) period.append(el("option", { value: each }, t(`app-period-${each}`)));
  }
  const addOns = el("input", { id: "addons", type: "checkbox" });
  const list = el("ul", { className: "list bouquets" });
  const draw = () => {
    const words = search.value.trim().toLowerCase();
    list.replaceChildren(
      ...shown.bouquets
        .filter((b) => b.name.toLowerCase().includes(words))
        .filter((b) => !period.value || b.period === period.value)
        .filter((b) => b.addOn === addOns.checked)
        .sort((a, b) => Number(b.renews) - Number(a.renews))
        .map((b) =>
          el(
            "li",
            {},
            button(
              [`${b.renews ? "↻ " : ""}${b.name}`, b.period && t(`app-period-${b.period}`), b.price]
                .filter(Boolean)
                .join(" · "),
              () => confirm(shown, b),
              b.renews ? "renews" : "",
            ),
          ),
        ),
    );
  };
  for (const input of [search, period, addOns]) input.addEventListener("input", draw);
  draw();
  screen(
    `${t(`app-service-${shown.connection.service}`)} ${shown.connection.id}`,
    el("p", {}, shown.customer),
    subscriptionList(shown.subscriptions),
    el(
      "div",
      { className: "filters" },
      el("label", { htmlFor: "search" }, t("app-search")),
      search,
      el("label", { htmlFor: "period" }, t("app-period")),
      period,
      el("label", { htmlFor: "addons", className: "check" }, addOns, t("app-add-ons")),
    ),
    list,
  );
}

function confirm(shown: Catalogue, bouquet: Bouquet): void {
  const pay = el("div", { className: "methods" });
  for (const method of methods) {
    pay.append(
      button(
        `${t(`app-pay-${method}`)} · ${bouquet.price}`,
        () => void buy(shown, bouquet, method),
        "primary",
      ),
    );
  }
  screen(
    t("app-confirm"),
    el(
      "dl",
      {},
      el("dt", {}, t("app-package")),
      el("dd", {}, bouquet.name),
      el("dt", {}, t("app-connection")),
      el("dd", {}, `${t(`app-service-${shown.connection.service}`)} ${shown.connection.id}`),
      el("dt", {}, t("app-price")),
      el("dd", {}, bouquet.price),
    ),
    pay,
    // Back: the same listing, not asked again.
    button(t("app-back"), () => drawCatalogue(shown)),
  );
}

async function buy(shown: Catalogue, bouquet: Bouquet, method: string): Promise<void> {
  let started: { purchase: string; invoice?: string; link?: string; qr?: string; inChat?: string };
  try {
    started = await api("purchases", { journey: shown.journey, bouquet: bouquet.index, method });
  } catch (error) {
    failed(error);
    return;
  }
  if (started.invoice) {
    const slug = started.invoice.split("$").at(-1) ?? "";
    postEvent("web_app_open_invoice", { slug });
  } else if (started.link) {
    postEvent("web_app_open_link", { url: started.link });
  }
  await progress(
    started.purchase,
    started.invoice || started.link || started.qr ? "app-paying" : "app-see-chat",
    started.qr,
  );
}

async function progress(id: string, waiting: string, qr?: string): Promise<void> {
  const status = notice(t(waiting));
  // Fonepay's QR, as the chat shows it: scanned with a bank's app.
  const image = qr?.startsWith("data:image/png;base64,")
    ? [el("img", { src: qr, alt: t("app-qr"), className: "qr" })]
    : [];
  screen(t("app-progress"), status, ...image);
  // The screen left (another drawn in its place): asking ends with it, and nothing of it is
  // drawn on the next one.
  const left = () => !status.isConnected;
  for (;;) {
    let found: Summary;
    try {
      found = await api<Summary>(`purchases/${id}`);
    } catch (error) {
      if (!left()) failed(error);
      return;
    }
    if (left()) return;
    if (found.phase !== "awaiting-payment") {
      status.textContent = t(`app-phase-${found.phase}`);
      // Paid or withdrawn, the QR is no longer to be paid (the chat's says so by then).
      for (const shown of image) shown.remove();
    }
    if (ENDED.has(found.phase)) {
      if (found.renewedUntil) main.append(el("p", {}, `${t("app-until")} ${found.renewedUntil}`));
      main.append(el("p", { className: "hint" }, t("app-receipt-in-chat")));
      return;
    }
    await wait(POLL_MS);
    if (left()) return;
  }
}

async function payAgain(id: string): Promise<void> {
  try {
    const again = await api<{ invoice?: string }>("purchases", { purchase: id });
    if (again.invoice) {
      postEvent("web_app_open_invoice", { slug: again.invoice.split("$").at(-1) ?? "" });
    }
    await progress(id, again.invoice ? "app-paying" : "app-see-chat");
  } catch (error) {
    failed(error);
  }
}

async function history(): Promise<void> {
  try {
    const { purchases } = await api<{ purchases: Summary[] }>("purchases");
    const list = el("ul", { className: "list" });
    for (const p of purchases) {
      const item = el("li", {}, `${p.bouquet} · ${p.price} · ${t(`app-phase-${p.phase}`)}`);
      // Waiting for its payment (started in the chat too): paid from here.
      if (p.phase === "awaiting-payment")
        item.append(
          " ",
          button(t("app-pay"), () => void payAgain(p.id)),
        );
      list.append(item);
    }
    screen(t("app-history"), purchases.length > 0 ? list : el("p", {}, t("app-no-history")));
  } catch (error) {
    failed(error);
  }
}

async function reminders(): Promise<void> {
  try {
    const { reminders: list } = await api<{ reminders: Json[] }>("reminders");
    const items = el("ul", { className: "list" });
    for (const r of list) {
      const id = String(r.id);
      const item = el(
        "li",
        {},
        `${String(r.bouquet)} · ${t("app-until")} ${String(r.end)} · ${t("app-reminder-on")} ${String(r.at)} `,
      );
      item.append(
        button(t("app-reminder-cancel"), async () => {
          await api("reminders", { cancel: id }).catch(failed);
          await reminders();
        }),
      );
      items.append(item);
    }
    screen(t("app-reminders"), list.length > 0 ? items : el("p", {}, t("app-no-reminders")));
  } catch (error) {
    failed(error);
  }
}

/**
 * The first screen's question, asked before anything is drawn: its round trip overlaps the
 * page's first style and layout instead of waiting behind them.
 */
let firstConnections: { path: string; answer: Promise<Connections> } | undefined;

function takeFirstConnections(path: string): Promise<Connections> | undefined {
  const first = firstConnections;
  firstConnections = undefined;
  return first?.path === path ? first.answer : undefined;
}

async function start(): Promise<void> {
  if (initData && !new URLSearchParams(location.search).get("renew")) {
    const path = `connections?language=${language}`;
    const answer = api<Connections>(path);
    // Its failure is told by the screen that awaits it, not as an unhandled rejection.
    answer.catch(() => undefined);
    firstConnections = { path, answer };
  }
  await loadTexts();
  drawHeader();
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  if (!initData) {
    screen(t("app-title"), notice(t("app-open-in-telegram"), "alert"));
    return;
  }
  // A receipt's "Renew in the shop" opens the app on that purchase's connection.
  const renew = new URLSearchParams(location.search).get("renew");
  if (renew) return catalogue(`purchase-${renew}`);
  return home();
}

void start();
