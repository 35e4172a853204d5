// The playground page: a Telegram-like chat for each simulated person (subscriber, support
// group member, admin), driven by the JSON API and the Server-Sent Events of tools/playground/web.ts.
// Plain DOM, no framework and no build step. Message text is only ever put into the page as
// text nodes: never through innerHTML. The page's own words follow its language (i18n.js).

import { labelOf, pageLanguage, rich, setPageLanguage, t, translatePage } from "./i18n.js";

const ROLES = ["user", "support", "admin"];

/** Whether each role's chat is a group (its messages show their sender). */
const ROLE_VIEW = {
  user: { group: false },
  support: { group: true },
  admin: { group: false },
};

/**
 * The "/" menu is the bot's own (setMyCommands, as Telegram shows it in the chat and the
 * person's language). A command that wants an argument is filled with one from the sandbox.
 */
const EXAMPLE_ARGUMENTS = { lookup: "1000002", plans: "1000001", topup: "" };

/** Where the bot sets no menu (the support group): the group's commands, [fill, text key]. */
const SUGGESTED_COMMANDS = {
  support: [
    ["/lookup 1000002", "command.lookup"],
    ["/txn ", "command.txn"],
    ["/recent", "command.recent"],
  ],
};

const SERVICE_ICONS = { tv: "📺", internet: "🌐", iptv: "📡" };

const BLOCKS = new Set(["pre", "blockquote", "expandable_blockquote"]);

/** Inside these, nothing is turned into a link or a command. */
const VERBATIM = new Set([
  "pre",
  "code",
  "url",
  "text_link",
  "email",
  "phone_number",
  "bot_command",
  "mention",
  "text_mention",
  "hashtag",
  "cashtag",
]);

/**
 * What Telegram's servers detect in plain text: bot commands (not next to a word character,
 * "/", "<", ">" or a backslash, as tdlib has it) and web links.
 */
const AUTO_ENTITIES =
  /(?<![\w/@<>\\])(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)(?![\w/<>\\])|\bhttps?:\/\/[^\s<>"'”’]*[^\s<>"'”’.,;:!?)\]]/g;

const TOAST_MS = 2600;
const TYPING_MS = 5000;
const PRESS_TIMEOUT_MS = 6000;

const $ = (id) => document.getElementById(id);
const ui = {
  app: $("app"),
  messages: $("messages"),
  toasts: $("toasts"),
  chatTitle: $("chat-title"),
  chatStatus: $("chat-status"),
  chatAvatar: $("chat-avatar"),
  composer: $("composer"),
  composerForm: $("composer-form"),
  send: $("send"),
  menuButton: $("menu-button"),
  commandMenu: $("command-menu"),
  replyKeyboard: $("reply-keyboard"),
  keyboardToggle: $("keyboard-toggle"),
  language: $("language"),
  roleSwitch: $("role-switch"),
  panelToggle: $("panel-toggle"),
  panelClose: $("panel-close"),
  apiVersion: $("api-version"),
  customers: $("customers"),
  topups: $("topups"),
  topupsCount: $("topups-count"),
  alert: $("alert"),
  alertText: $("alert-text"),
  alertOk: $("alert-ok"),
  guideSteps: $("guide-steps"),
  guideMenu: $("guide-menu"),
  checkout: $("checkout"),
  checkoutForm: $("checkout-form"),
  checkoutItem: $("checkout-item"),
  checkoutAmount: $("checkout-amount"),
  cardNumber: $("card-number"),
  cardExpiry: $("card-expiry"),
  cardCvc: $("card-cvc"),
  checkoutHint: $("checkout-hint"),
  checkoutError: $("checkout-error"),
  checkoutCancel: $("checkout-cancel"),
  checkoutPay: $("checkout-pay"),
};

const perRole = (make) => Object.fromEntries(ROLES.map((role) => [role, make(role)]));

const state = {
  role: "user",
  botName: "Top-up Bot",
  roles: {},
  /** Message ids seen per role, to tell new messages (unread) from edits. */
  known: perRole(() => new Set()),
  unread: perRole(() => 0),
  drafts: perRole(() => ""),
  keyboards: perRole(() => null),
  keyboardHidden: perRole(() => false),
  /** The bot's command menu in each role's chat (from /api/chat). */
  commands: perRole(() => []),
  /** The message each role's preview line shows. */
  previewId: perRole(() => 0),
  typingUntil: perRole(() => 0),
  /** The shown chat's message elements by id. */
  elements: new Map(),
  /** Which role the message list currently shows (null: none yet). */
  shownRole: null,
  /** While a chat is being fetched, its live events wait here. */
  pendingEvents: null,
  loadGeneration: 0,
  /** Buttons waiting for the bot after a press: {role, messageId, button, timer}. */
  presses: new Set(),
  connected: false,
  everConnected: false,
  /** Whether the message list is scrolled to its end. */
  stuck: true,
  knownTopups: new Set(),
  /** From the bootstrap: {mode: "all" | "telegram" | "khalti" | "esewa" | "none", testCards: {paying, declined}}. */
  payments: { mode: "none", testCards: { paying: "", declined: "" } },
  /** The open payment form: {role, messageId, busy}; null when closed. */
  checkout: null,
};

// ---------------------------------------------------------------------------------------
// Small DOM helpers

/** An element with attributes (class, text, dataset, on<event> listeners) and children. */
function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
}

async function api(path, body) {
  const init =
    body === undefined
      ? { headers: { accept: "application/json" } }
      : {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(body),
        };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `HTTP ${response.status}`);
  return data;
}

/** Dates and numbers as a Telegram client in the page's language writes them. */
const locale = () => (pageLanguage() === "ne" ? "ne-NP" : undefined);

/** A browser whose Intl lacks Nepali (Debian's Chromium) writes Nepali dates with these. */
const NEPALI_MONTHS = [
  "जनवरी",
  "फेब्रुअरी",
  "मार्च",
  "अप्रिल",
  "मे",
  "जुन",
  "जुलाई",
  "अगस्ट",
  "सेप्टेम्बर",
  "अक्टोबर",
  "नोभेम्बर",
  "डिसेम्बर",
];
const knowsNepali = Intl.DateTimeFormat.supportedLocalesOf(["ne"]).length > 0;
const nepaliDigits = (text) => text.replace(/\d/g, (digit) => "०१२३४५६७८९"[Number(digit)]);

/** "14:05" (24-hour), in the page's language. */
function timeOf(date) {
  const time = new Intl.DateTimeFormat(locale(), {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(date);
  return pageLanguage() === "ne" && !knowsNepali ? nepaliDigits(time) : time;
}

/** "27 November" (the day chips), in the page's language. */
function dayOf(date) {
  if (pageLanguage() === "ne" && !knowsNepali) {
    return `${NEPALI_MONTHS[date.getMonth()]} ${nepaliDigits(String(date.getDate()))}`;
  }
  return new Intl.DateTimeFormat(locale(), { day: "numeric", month: "long" }).format(date);
}

// ---------------------------------------------------------------------------------------
// Telegram formatting: text + entities (UTF-16 offsets, as JS strings index) to DOM nodes

/**
 * Renders `text` with its entities. Entities may nest and overlap: the text is cut at every
 * entity boundary, and each piece is wrapped in the entities covering it, reusing the open
 * elements of the previous piece where they are the same (outermost first), so overlapping
 * entities are split into correctly nested elements.
 */
function renderFormatted(text, entities) {
  const fragment = document.createDocumentFragment();
  const spans = (entities ?? [])
    .map((entity, index) => ({
      entity,
      index,
      start: Math.max(0, Math.min(text.length, entity.offset)),
      end: Math.max(0, Math.min(text.length, entity.offset + entity.length)),
    }))
    .filter((span) => span.end > span.start)
    // Ties keep the order Telegram (here the emulator) sends: outermost first.
    .sort((a, b) => a.start - b.start || b.end - a.end || a.index - b.index);
  const cuts = new Set([0, text.length]);
  for (const span of spans) {
    cuts.add(span.start);
    cuts.add(span.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  /** The open elements: the fragment, then one per active entity, outermost first. */
  const stack = [{ span: null, into: fragment }];
  for (let i = 0; i < points.length - 1; i++) {
    const from = points[i];
    const to = points[i + 1];
    const active = spans.filter((span) => span.start <= from && span.end >= to);
    let keep = 1;
    while (keep < stack.length && stack[keep].span === active[keep - 1]) keep++;
    stack.length = keep;
    for (const span of active.slice(keep - 1)) {
      const { node, into } = entityElement(span.entity, text.slice(span.start, span.end));
      stack[stack.length - 1].into.append(node);
      stack.push({ span, into });
    }
    const verbatim = active.some((span) => VERBATIM.has(span.entity.type));
    let piece = text.slice(from, to);
    // A block (pre, blockquote) has its own line: the line breaks around it are not drawn.
    const blockEnds = spans.some((span) => BLOCKS.has(span.entity.type) && span.end === from);
    const blockStarts = spans.some((span) => BLOCKS.has(span.entity.type) && span.start === to);
    if (blockEnds) piece = piece.replace(/^\n/, "");
    if (blockStarts) piece = piece.replace(/\n$/, "");
    appendText(stack[stack.length - 1].into, piece, !verbatim);
  }
  return fragment;
}

/** Plain text, with the commands and links Telegram would detect made live. */
function appendText(parent, text, detect) {
  if (!detect) {
    parent.append(text);
    return;
  }
  let last = 0;
  for (const match of text.matchAll(AUTO_ENTITIES)) {
    parent.append(text.slice(last, match.index));
    const found = match[0];
    const node = match[1] ? commandButton(found) : (safeLink(found) ?? h("span"));
    node.textContent = found;
    parent.append(node);
    last = match.index + found.length;
  }
  parent.append(text.slice(last));
}

function commandButton(command) {
  return h("button", {
    type: "button",
    class: "bot-command",
    dataset: { command },
    title: t("message.send", { command }),
  });
}

/** A link for http(s), mailto, tel and tg addresses; undefined for anything else. */
function safeLink(address) {
  const withScheme = /^[a-z][a-z\d+.-]*:/i.test(address) ? address : `http://${address}`;
  let url;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  if (!["http:", "https:", "mailto:", "tel:", "tg:"].includes(url.protocol)) return undefined;
  return h("a", { href: url.href, target: "_blank", rel: "noopener noreferrer" });
}

/** The element for one entity, and where the text inside it goes. */
function entityElement(entity, covered) {
  const simple = (tag, className) => {
    const node = h(tag, { class: className });
    return { node, into: node };
  };
  switch (entity.type) {
    case "bold":
      return simple("strong");
    case "italic":
      return simple("em");
    case "underline":
      return simple("u");
    case "strikethrough":
      return simple("s");
    case "spoiler":
      return simple("span", "spoiler");
    case "code":
      return simple("code", "inline-code");
    case "blockquote":
    case "expandable_blockquote":
      return simple("blockquote");
    case "pre": {
      const code = h("code", {
        class: entity.language ? `language-${entity.language}` : undefined,
      });
      const node = h(
        "pre",
        { class: "pre", dataset: entity.language ? { language: entity.language } : {} },
        entity.language ? h("span", { class: "pre-language", text: entity.language }) : null,
        code,
      );
      return { node, into: code };
    }
    case "text_link":
    case "url":
    case "email":
    case "phone_number": {
      const address =
        entity.type === "text_link"
          ? entity.url
          : entity.type === "email"
            ? `mailto:${covered}`
            : entity.type === "phone_number"
              ? `tel:${covered.replace(/[^\d+]/g, "")}`
              : covered;
      const node = safeLink(address ?? "") ?? h("span", { class: "link-refused" });
      return { node, into: node };
    }
    case "bot_command": {
      const node = commandButton(covered);
      return { node, into: node };
    }
    case "mention":
    case "text_mention":
      return simple("span", "mention");
    case "hashtag":
    case "cashtag":
      return simple("span", "hashtag");
    default:
      return simple("span");
  }
}

// ---------------------------------------------------------------------------------------
// Messages

function messageTime(message) {
  return timeOf(new Date(message.date * 1000));
}

/** Draws `message` into `element` (created when absent); the element is kept across edits. */
function renderMessage(message, existing) {
  const element = existing ?? h("div");
  if (message.payment) return renderPayment(message, element);
  const outgoing = !message.fromBot;
  element.className = `message ${outgoing ? "outgoing" : "incoming"}`;
  element.classList.toggle("has-keyboard", message.inlineKeyboard.length > 0);
  element.classList.toggle("is-edited", message.edited);
  element.dataset.messageId = String(message.id);
  element.dataset.from = outgoing ? "person" : "bot";
  element.dataset.sender = message.sender;
  element.dataset.date = String(message.date);

  const bubble = h("div", { class: "bubble" });
  if (ROLE_VIEW[state.role].group) {
    bubble.append(
      h("div", {
        class: `sender ${outgoing ? "sender-person" : "sender-bot"}`,
        text: message.sender,
      }),
    );
  }
  if (message.photo) bubble.append(photoElement(message));
  if (message.document) bubble.append(documentCard(message.document));
  if (message.contact) {
    bubble.append(
      h(
        "div",
        { class: "contact" },
        h("span", {
          class: "contact-icon",
          "aria-hidden": "true",
          text: (message.sender || "?").slice(0, 1),
        }),
        h(
          "span",
          { class: "contact-body" },
          h("span", { class: "contact-phone", text: `📱 ${message.contact}` }),
          h("span", { class: "contact-label", text: t("message.contact") }),
        ),
      ),
    );
  }
  const meta = h(
    "span",
    { class: "meta" },
    message.edited ? h("span", { class: "edited", text: t("message.edited") }) : null,
    h("time", {
      datetime: new Date(message.date * 1000).toISOString(),
      text: messageTime(message),
    }),
    outgoing ? h("span", { class: "ticks", "aria-label": t("message.read"), text: "✓✓" }) : null,
  );
  if (message.invoice) bubble.append(invoiceCard(message.invoice));
  if (message.text) {
    bubble.append(
      h(
        "div",
        { class: "text" },
        renderFormatted(message.text, message.entities),
        h("span", { class: "meta-spacer", "aria-hidden": "true" }),
      ),
    );
  }
  bubble.append(meta);

  const stack = h("div", { class: "message-stack" }, bubble);
  if (message.inlineKeyboard.length > 0) stack.append(inlineKeyboard(message));
  element.replaceChildren(stack);
  return element;
}

/**
 * A photo: the image itself when the bot uploaded it (a report's chart), opened whole in a new
 * tab; a placeholder for one given by a link (the playground fetches nothing from outside).
 */
function photoElement(message) {
  const url = message.photo.url;
  if (!url) {
    return h(
      "div",
      { class: "photo", role: "img", "aria-label": t("message.photo") },
      h("span", { class: "photo-icon", "aria-hidden": "true", text: "🖼" }),
      h("span", { class: "photo-label", text: t("message.photo") }),
    );
  }
  const image = h("img", {
    class: "photo-image",
    src: url,
    alt: message.text || t("message.photo"),
    decoding: "async",
  });
  // The image grows the chat once it is in: a chat read at its end stays there.
  image.addEventListener("load", () => {
    if (state.stuck) scrollToBottom();
  });
  return h(
    "a",
    {
      class: "photo-link",
      href: url,
      target: "_blank",
      rel: "noopener",
      title: t("message.openPhoto"),
    },
    image,
  );
}

/** A document as Telegram draws one: its type, name and size, a tap saving it. */
function documentCard(file) {
  const extension = /\.([A-Za-z0-9]{1,5})$/.exec(file.name)?.[1]?.toUpperCase() ?? "";
  const size = file.size === undefined ? "" : fileSize(file.size);
  const link = (props, ...children) =>
    file.url
      ? h("a", { href: file.url, download: file.name, ...props }, ...children)
      : h("span", props, ...children);
  return h(
    "div",
    { class: "document" },
    link(
      {
        class: "document-icon",
        "aria-label": t("message.download", { name: file.name }),
        title: t("message.download", { name: file.name }),
      },
      h("span", { "aria-hidden": "true", text: extension || "📄" }),
    ),
    h(
      "span",
      { class: "document-body" },
      link({ class: "document-name", text: file.name }),
      h("span", {
        class: "document-size",
        text: [size, extension || t("message.document")].filter(Boolean).join(" · "),
      }),
    ),
  );
}

/** 812 B, 12.3 kB, 1.2 MB: the number in the page's language. */
function fileSize(bytes) {
  const [unit, value] =
    bytes >= 1_000_000
      ? ["MB", bytes / 1_000_000]
      : bytes >= 1_000
        ? ["kB", bytes / 1_000]
        : ["B", bytes];
  const number = new Intl.NumberFormat(locale(), { maximumFractionDigits: 1 }).format(value);
  return `${pageLanguage() === "ne" && !knowsNepali ? nepaliDigits(number) : number} ${unit}`;
}

function inlineKeyboard(message) {
  const keyboard = h("div", {
    class: "inline-keyboard",
    role: "group",
    "aria-label": t("message.buttons"),
  });
  for (const row of message.inlineKeyboard) {
    keyboard.append(
      h("div", { class: "inline-row" }, ...row.map((button) => inlineButton(button, message))),
    );
  }
  return keyboard;
}

function inlineButton(button, message) {
  if (button.pay && message.invoice) return payButton(button, message.invoice);
  // A web_app button opens the bot's Mini App beside the chat (openMiniApp).
  if (button.webApp) {
    return h("button", {
      type: "button",
      class: "webapp-button",
      text: button.text,
      dataset: { webapp: button.webApp },
    });
  }
  if (button.url) {
    const link = safeLink(button.url) ?? h("span");
    link.className = "inline-button url-button";
    link.append(button.text, h("span", { class: "url-mark", "aria-hidden": "true", text: "↗" }));
    return link;
  }
  // Buttons that are neither callback nor link (inline queries, logins) are not emulated.
  return h("button", {
    type: "button",
    class: "inline-button",
    text: button.text,
    disabled: button.data === undefined,
    title: button.data === undefined ? t("message.notAvailable") : undefined,
    dataset: { callback: button.data ?? "" },
  });
}

/** An invoice's Pay button opens the payment form; once paid, Telegram shows it as paid. */
function payButton(button, invoice) {
  return h("button", {
    type: "button",
    class: "inline-button pay-button",
    text: invoice.paid ? t("invoice.paid") : button.text,
    disabled: invoice.paid,
    title: invoice.paid ? t("invoice.paidTitle") : t("invoice.payTitle"),
    dataset: { title: invoice.title, amount: invoice.amount },
  });
}

/** Telegram's card for an invoice: title, description and the total, drawn as text. */
function invoiceCard(invoice) {
  return h(
    "div",
    { class: "invoice" },
    h("div", { class: "invoice-title", text: invoice.title }),
    h("div", { class: "invoice-description", text: invoice.description }),
    h(
      "div",
      { class: "invoice-total" },
      h("span", { class: "invoice-amount", text: invoice.amount }),
      h("span", {
        class: "invoice-tag",
        text: invoice.paid ? t("invoice.tagPaid") : t("invoice.tagTest"),
      }),
      h("span", { class: "meta-spacer", "aria-hidden": "true" }),
    ),
  );
}

/** successful_payment: a service line in the middle of the chat, as Telegram draws it. */
function renderPayment(message, element) {
  element.className = "message service";
  element.dataset.messageId = String(message.id);
  element.dataset.from = "service";
  element.dataset.sender = message.sender;
  element.dataset.date = String(message.date);
  element.replaceChildren(h("span", { class: "service-text", text: paymentLine(message) }));
  return element;
}

function paymentLine(message) {
  const values = { who: message.sender, amount: message.payment.amount, bot: state.botName };
  return t(ROLE_VIEW[state.role].group ? "payment.other" : "payment.you", values);
}

function nearBottom() {
  const list = ui.messages;
  return list.scrollHeight - list.scrollTop - list.clientHeight < 80;
}

function scrollToBottom() {
  ui.messages.scrollTop = ui.messages.scrollHeight;
  state.stuck = true;
}

function messageElements() {
  return [...ui.messages.querySelectorAll(":scope > .message")];
}

/** Groups consecutive bubbles of one sender (Telegram's tails) and puts a chip before each day. */
function regroup() {
  for (const chip of ui.messages.querySelectorAll(":scope > .date-chip, :scope > .empty-chat")) {
    chip.remove();
  }
  const elements = messageElements();
  if (elements.length === 0) {
    ui.messages.append(emptyChat());
    return;
  }
  const sameGroup = (a, b) =>
    a !== undefined &&
    b !== undefined &&
    a.dataset.from === b.dataset.from &&
    a.dataset.sender === b.dataset.sender &&
    new Date(Number(a.dataset.date) * 1000).toDateString() ===
      new Date(Number(b.dataset.date) * 1000).toDateString();
  let previousDay = "";
  for (const [index, element] of elements.entries()) {
    const date = new Date(Number(element.dataset.date) * 1000);
    const day = date.toDateString();
    if (day !== previousDay) {
      element.before(
        h("div", { class: "date-chip", role: "separator" }, h("span", { text: dayOf(date) })),
      );
      previousDay = day;
    }
    element.classList.toggle("group-first", !sameGroup(elements[index - 1], element));
    element.classList.toggle("group-last", !sameGroup(element, elements[index + 1]));
  }
}

function emptyChat() {
  const role = state.role;
  const card = h("div", { class: "empty-chat" });
  if (role === "support") {
    card.append(
      h("p", { class: "empty-title", text: t("empty.supportTitle") }),
      h("p", { text: t("empty.supportText") }),
      h("button", {
        type: "button",
        class: "bot-command empty-action",
        dataset: { command: "/lookup 1000002" },
        text: "/lookup 1000002",
      }),
    );
  } else {
    card.append(
      h("p", { class: "empty-title", text: t("empty.title") }),
      h("p", { text: role === "admin" ? t("empty.admin") : t("empty.user") }),
      h("button", {
        type: "button",
        class: "bot-command empty-action",
        dataset: { command: role === "admin" ? "/broadcast" : "/start" },
        text: role === "admin" ? "/broadcast" : t("empty.start"),
      }),
    );
  }
  return card;
}

/** Adds, replaces (in place) or removes one message of the shown chat. */
function upsertMessage(message) {
  const stick = nearBottom();
  const existing = state.elements.get(message.id);
  if (message.deleted) {
    if (existing) {
      existing.remove();
      state.elements.delete(message.id);
      regroup();
    }
    return;
  }
  if (existing) {
    renderMessage(message, existing);
    existing.classList.remove("just-edited");
    void existing.offsetWidth;
    existing.classList.add("just-edited");
  } else {
    const element = renderMessage(message);
    element.classList.add("appear");
    place(message.id, element);
  }
  regroup();
  if (stick || (!existing && !message.fromBot)) scrollToBottom();
}

/** Puts a new message element in id order among those shown. */
function place(id, element) {
  const later = [...state.elements.entries()]
    .filter(([other]) => other > id)
    .sort(([a], [b]) => a - b)[0];
  if (later) later[1].before(element);
  else ui.messages.append(element);
  state.elements.set(id, element);
}

/** Shows `role`'s chat from a fresh snapshot; live events arriving meanwhile are applied after. */
async function loadChat(role) {
  const generation = ++state.loadGeneration;
  state.pendingEvents = [];
  let data;
  try {
    data = await api(`/api/chat/${role}`);
  } catch (error) {
    if (generation === state.loadGeneration) {
      state.pendingEvents = null;
      toast(t("toast.noChat", { reason: error.message }));
    }
    return;
  }
  if (generation !== state.loadGeneration || role !== state.role) return;
  const queued = state.pendingEvents ?? [];
  state.pendingEvents = null;
  if (state.shownRole !== role) {
    ui.messages.replaceChildren();
    state.elements.clear();
    state.shownRole = role;
    ui.messages.dataset.role = role;
  }
  const present = new Set();
  for (const message of data.messages) {
    state.known[role].add(message.id);
    if (message.deleted) continue;
    present.add(message.id);
    const existing = state.elements.get(message.id);
    if (existing) {
      renderMessage(message, existing);
      continue;
    }
    const element = renderMessage(message);
    place(message.id, element);
  }
  for (const [id, element] of state.elements) {
    if (!present.has(id)) {
      element.remove();
      state.elements.delete(id);
    }
  }
  regroup();
  const last = data.messages.filter((message) => !message.deleted).at(-1);
  if (last) setPreview(role, last);
  setKeyboard(role, data.keyboard);
  state.commands[role] = data.commands ?? [];
  setMenuApp(role, data.menuApp);
  for (const event of queued) onChatEvent(event);
  scrollToBottom();
}

/** What the chat list needs of a chat not shown: its last message and which ids exist. */
async function primeRole(role) {
  let data;
  try {
    data = await api(`/api/chat/${role}`);
  } catch {
    return;
  }
  for (const message of data.messages) state.known[role].add(message.id);
  const last = data.messages.filter((message) => !message.deleted).at(-1);
  if (last && last.id >= state.previewId[role]) setPreview(role, last);
  if (role !== state.role) setKeyboard(role, data.keyboard);
  state.commands[role] = data.commands ?? [];
  setMenuApp(role, data.menuApp);
}

// ---------------------------------------------------------------------------------------
// Roles, header, previews and badges

function switchRole(role) {
  if (!ROLES.includes(role)) return;
  if (role === state.role && state.shownRole === role) return;
  state.drafts[state.role] = ui.composer.value;
  state.role = role;
  state.unread[role] = 0;
  for (const button of ui.roleSwitch.querySelectorAll(".role-button")) {
    button.setAttribute("aria-pressed", String(button.dataset.role === role));
  }
  ui.app.dataset.role = role;
  ui.composer.value = state.drafts[role];
  autosize();
  closeMenu();
  renderBadges();
  renderHeader();
  renderKeyboard();
  renderMenuApp();
  ui.messages.classList.toggle("group-chat", ROLE_VIEW[role].group);
  void loadChat(role);
}

function renderHeader() {
  const role = state.role;
  const spec = state.roles[role];
  const typing = state.typingUntil[role] > Date.now();
  if (ROLE_VIEW[role].group) {
    ui.chatTitle.textContent = spec?.group ?? t("role.support");
    ui.chatAvatar.textContent = (spec?.group ?? "S").slice(0, 1);
    ui.chatAvatar.className = "avatar avatar-support";
  } else {
    ui.chatTitle.textContent = state.botName;
    ui.chatAvatar.textContent = state.botName.slice(0, 1);
    ui.chatAvatar.className = "avatar avatar-bot";
  }
  const bot = state.botName;
  let status;
  if (!state.connected)
    status = t(state.everConnected ? "status.reconnecting" : "status.connecting");
  else if (typing)
    status = ROLE_VIEW[role].group ? t("status.botTyping", { bot }) : t("status.typing");
  else if (ROLE_VIEW[role].group) {
    status = t("status.group", { bot, name: spec?.first_name ?? t("status.you") });
  } else status = t("status.online");
  ui.chatStatus.textContent = status;
  ui.chatStatus.classList.toggle("typing", state.connected && typing);
  ui.chatStatus.classList.toggle("offline", !state.connected);
}

function setPreview(role, message) {
  const preview = $(`preview-${role}`);
  if (!preview) return;
  preview.textContent = previewText(message).replace(/\s+/g, " ");
  preview.classList.remove("typing");
  delete preview.dataset.saved;
  state.previewId[role] = message.id;
}

/** The chat list's line for a message: who (unless the bot) and what. */
function previewText(message) {
  if (message.payment) return t("preview.paid", { amount: message.payment.amount });
  const text = message.invoice
    ? `🧾 ${message.invoice.title}`
    : message.photo
      ? `🖼 ${message.text || t("message.photo")}`
      : message.document
        ? `📄 ${message.document.name}`
        : message.contact
          ? `📱 ${message.contact}`
          : message.text;
  return message.fromBot ? text : `${message.sender}: ${text}`;
}

function renderTypingPreview(role) {
  const preview = $(`preview-${role}`);
  if (!preview) return;
  if (state.typingUntil[role] > Date.now()) {
    preview.dataset.saved = preview.dataset.saved ?? preview.textContent;
    preview.textContent = t("status.typing");
    preview.classList.add("typing");
  } else if (preview.classList.contains("typing")) {
    preview.textContent = preview.dataset.saved ?? t(`idle.${role}`);
    preview.classList.remove("typing");
    delete preview.dataset.saved;
  }
}

function renderBadges() {
  for (const role of ROLES) {
    const badge = $(`badge-${role}`);
    const count = state.unread[role];
    badge.hidden = count === 0;
    badge.textContent = count > 99 ? "99+" : String(count);
    badge.setAttribute("aria-label", t("badge.unread", { count }));
  }
}

// ---------------------------------------------------------------------------------------
// Reply keyboard

function setKeyboard(role, keyboard) {
  const before = JSON.stringify(state.keyboards[role]);
  state.keyboards[role] = keyboard ?? null;
  if (before !== JSON.stringify(state.keyboards[role])) state.keyboardHidden[role] = false;
  if (role === state.role) renderKeyboard();
}

function renderKeyboard() {
  const markup = state.keyboards[state.role];
  const rows = markup?.keyboard ?? [];
  ui.replyKeyboard.replaceChildren();
  for (const row of rows) {
    const line = h("div", { class: "reply-row" });
    for (const button of row) {
      const text = typeof button === "string" ? button : button.text;
      line.append(
        h("button", {
          type: "button",
          class: `reply-button${button.request_contact ? " request-contact" : ""}`,
          text,
          dataset: { text },
        }),
      );
    }
    ui.replyKeyboard.append(line);
  }
  const has = rows.length > 0;
  const hidden = state.keyboardHidden[state.role];
  ui.replyKeyboard.hidden = !has || hidden;
  ui.replyKeyboard.classList.toggle("resized", Boolean(markup?.resize_keyboard));
  ui.keyboardToggle.hidden = !has;
  ui.keyboardToggle.setAttribute("aria-expanded", String(has && !hidden));
  ui.composer.placeholder = (has && markup.input_field_placeholder) || t("composer.placeholder");
}

async function tapReplyButton(button) {
  const role = state.role;
  const markup = state.keyboards[role];
  button.classList.add("loading");
  try {
    await api("/api/reply-button", { role, text: button.dataset.text });
    if (
      markup?.one_time_keyboard &&
      JSON.stringify(state.keyboards[role]) === JSON.stringify(markup)
    ) {
      state.keyboardHidden[role] = true;
      if (role === state.role) renderKeyboard();
    }
  } catch (error) {
    toast(error.message);
  } finally {
    button.classList.remove("loading");
  }
}

// ---------------------------------------------------------------------------------------
// Sending, pressing, commands

async function sendText(text) {
  const role = state.role;
  if (text.trim() === "") return;
  try {
    await api("/api/send", { role, text });
  } catch (error) {
    toast(t("toast.notSent", { reason: error.message }));
  }
}

function submitComposer() {
  const text = ui.composer.value;
  if (text.trim() === "") {
    ui.composer.focus();
    return;
  }
  ui.composer.value = "";
  state.drafts[state.role] = "";
  autosize();
  closeMenu();
  void sendText(text);
}

async function press(button) {
  if (button.classList.contains("loading")) return;
  const role = state.role;
  const messageId = Number(button.closest(".message")?.dataset.messageId);
  button.classList.add("loading");
  button.setAttribute("aria-busy", "true");
  const entry = { role, messageId, button, timer: 0 };
  entry.timer = setTimeout(() => settlePresses(role), PRESS_TIMEOUT_MS);
  state.presses.add(entry);
  try {
    await api("/api/press", { role, messageId, data: button.dataset.callback });
  } catch (error) {
    settlePresses(role);
    toast(error.message);
  }
}

/** The bot answered (a toast, an edit or a new message): buttons stop showing their spinner. */
function settlePresses(role) {
  for (const entry of state.presses) {
    if (entry.role !== role) continue;
    clearTimeout(entry.timer);
    entry.button.classList.remove("loading");
    entry.button.removeAttribute("aria-busy");
    state.presses.delete(entry);
  }
}

function autosize() {
  ui.composer.style.height = "auto";
  ui.composer.style.height = `${Math.min(ui.composer.scrollHeight, 160)}px`;
}

/** Puts `text` into the text box at the cursor, as a paste would. */
function paste(text) {
  const box = ui.composer;
  const start = box.selectionStart ?? box.value.length;
  const end = box.selectionEnd ?? box.value.length;
  const before = box.value.slice(0, start);
  const insert = before === "" || /\s$/.test(before) ? text : ` ${text}`;
  box.setRangeText(insert, start, end, "end");
  autosize();
  box.focus();
}

/**
 * The "/" menu of the role's commands. Typing a command filters it (without taking the focus
 * from the text box); the menu button opens it whole, the focus on its first item.
 */
function openMenu({ filter = "", focus = true } = {}) {
  const list = menuCommands(state.role).filter(([fill]) => fill.startsWith(filter));
  if (list.length === 0) {
    closeMenu();
    return;
  }
  ui.commandMenu.replaceChildren(
    ...list.map(([fill, description]) =>
      h(
        "button",
        { type: "button", class: "command-item", role: "menuitem", dataset: { fill } },
        h("span", { class: "command-name", text: fill.trim() }),
        h("span", { class: "command-description", text: description }),
      ),
    ),
  );
  ui.commandMenu.hidden = false;
  ui.menuButton.setAttribute("aria-expanded", "true");
  if (focus) ui.commandMenu.querySelector("button")?.focus();
}

/** The bot's menu for the role's chat, as it is now. */
async function refreshCommands(role) {
  try {
    const data = await api(`/api/commands/${role}`);
    state.commands[role] = data.commands ?? [];
    setMenuApp(role, data.menuApp);
  } catch {
    // The menu last known stays.
  }
}

/** [what an item fills the text box with, what it does]: the bot's menu, or the suggestions. */
function menuCommands(role) {
  const own = state.commands[role] ?? [];
  if (own.length > 0) {
    return own.map(({ command, description }) => {
      const example = EXAMPLE_ARGUMENTS[command];
      return [example ? `/${command} ${example}` : `/${command}`, description];
    });
  }
  return (SUGGESTED_COMMANDS[role] ?? []).map(([fill, key]) => [fill, t(key)]);
}

function closeMenu() {
  if (ui.commandMenu.hidden) return;
  ui.commandMenu.hidden = true;
  ui.menuButton.setAttribute("aria-expanded", "false");
}

// ---------------------------------------------------------------------------------------
// Toasts and alerts

function toast(text) {
  const node = h("div", { class: "toast", role: "status", text });
  ui.toasts.append(node);
  while (ui.toasts.children.length > 3) ui.toasts.firstElementChild.remove();
  setTimeout(() => {
    node.classList.add("leaving");
    setTimeout(() => node.remove(), 250);
  }, TOAST_MS);
}

let focusBeforeAlert = null;
function showAlert(text) {
  focusBeforeAlert = document.activeElement;
  ui.alertText.textContent = text;
  ui.alert.hidden = false;
  ui.alertOk.focus();
}

function closeAlert() {
  ui.alert.hidden = true;
  if (focusBeforeAlert instanceof HTMLElement) focusBeforeAlert.focus();
  focusBeforeAlert = null;
}

// ---------------------------------------------------------------------------------------
// The payment form: Telegram's checkout for an invoice, with a test card

/** A card that works, as test modes want one: any expiry to come and any CVC. */
const TEST_EXPIRY = "12/34";
const TEST_CVC = "123";

let focusBeforeCheckout = null;

function openCheckout(payButton) {
  const messageId = Number(payButton.closest(".message")?.dataset.messageId);
  state.checkout = { role: state.role, messageId, busy: false };
  focusBeforeCheckout = payButton;
  ui.checkoutItem.textContent = payButton.dataset.title;
  ui.checkoutAmount.textContent = payButton.dataset.amount;
  ui.checkoutPay.textContent = t("checkout.pay", { amount: payButton.dataset.amount });
  ui.cardNumber.value = state.payments.testCards.paying;
  ui.cardExpiry.value = TEST_EXPIRY;
  ui.cardCvc.value = TEST_CVC;
  setCheckoutBusy(state.checkout, false);
  showCheckoutError("");
  ui.checkout.hidden = false;
  ui.checkoutPay.focus();
}

function closeCheckout() {
  if (!state.checkout || state.checkout.busy) return;
  state.checkout = null;
  ui.checkout.hidden = true;
  if (focusBeforeCheckout?.isConnected) focusBeforeCheckout.focus();
  else ui.composer.focus();
  focusBeforeCheckout = null;
}

/** The bot withdrew the invoice the form is open for (cancelled, expired): nothing to pay. */
function invoiceWithdrawn(role, messageId) {
  const checkout = state.checkout;
  if (!checkout || checkout.role !== role || checkout.messageId !== messageId) return;
  checkout.busy = false;
  closeCheckout();
  toast(t("toast.withdrawn"));
}

/** The card as typed, checked as a payment form does before sending it anywhere. */
function cardProblem() {
  if (!/^(0[1-9]|1[0-2])\/\d{2}$/.test(ui.cardExpiry.value.trim())) {
    return t("checkout.checkExpiry");
  }
  if (!/^\d{3,4}$/.test(ui.cardCvc.value.trim())) return t("checkout.checkCvc");
  return "";
}

async function submitCheckout() {
  const checkout = state.checkout;
  if (!checkout || checkout.busy) return;
  const problem = cardProblem();
  showCheckoutError(problem);
  if (problem) return;
  setCheckoutBusy(checkout, true);
  let result;
  try {
    result = await api("/api/pay", {
      role: checkout.role,
      messageId: checkout.messageId,
      cardNumber: ui.cardNumber.value,
    });
  } catch (error) {
    result = { kind: "error", message: error.message };
  }
  setCheckoutBusy(checkout, false);
  // Closed meanwhile (the invoice withdrawn): the chat says what became of it.
  if (state.checkout !== checkout) return;
  if (result.kind === "paid") closeCheckout();
  else showCheckoutError(checkoutFailure(result));
}

/** Why the payment did not go through: the form's words, or the bot's when it said no. */
function checkoutFailure(result) {
  switch (result.kind) {
    case "declined":
      return t("checkout.declined");
    case "invalid-card":
      return t("checkout.invalidCard");
    case "refused":
      return result.errorMessage || t("checkout.refused");
    case "timeout":
      return t("checkout.timeout");
    case "unavailable":
      return t("checkout.unavailable", { reason: result.reason });
    default:
      return t("checkout.failed", { reason: result.message ?? result.kind });
  }
}

function showCheckoutError(text) {
  ui.checkoutError.textContent = text;
  ui.checkoutError.hidden = text === "";
}

/** While the card is charged nothing in the form can be changed, and it cannot be closed. */
function setCheckoutBusy(checkout, busy) {
  checkout.busy = busy;
  // A payment from a form closed meanwhile: the form on screen is another one's.
  if (state.checkout !== checkout) return;
  ui.checkoutPay.classList.toggle("loading", busy);
  ui.checkoutPay.setAttribute("aria-busy", String(busy));
  for (const control of [ui.cardNumber, ui.cardExpiry, ui.cardCvc, ui.checkoutPay]) {
    control.disabled = busy;
  }
  ui.checkoutCancel.disabled = busy;
}

// ---------------------------------------------------------------------------------------
// The provider sandbox panel

async function refreshSandbox() {
  let data;
  try {
    data = await api("/api/sandbox");
  } catch {
    return;
  }
  renderCustomers(data.customers ?? []);
  renderTopups(data.topups ?? []);
}

function codeButton(code, label, icon, extraClass = "") {
  return h(
    "button",
    {
      type: "button",
      class: `code ${extraClass}`.trim(),
      dataset: { code },
      title: t("code.title", { label, code }),
    },
    icon ? h("span", { class: "code-icon", "aria-hidden": "true", text: icon }) : null,
    h("span", { class: "code-text", text: code }),
  );
}

function renderCustomers(customers) {
  const subscriberPhone = state.roles.user?.phone;
  ui.customers.replaceChildren(
    ...customers.map((customer) => {
      const mine = subscriberPhone && customer.mobile === subscriberPhone;
      return h(
        "li",
        { class: "customer", dataset: { cuid: customer.cuid } },
        h(
          "div",
          { class: "customer-head" },
          h("span", { class: "customer-name", text: customer.name }),
          mine
            ? h("span", {
                class: "tag",
                text: t("customers.phone"),
                title: t("customers.phoneTitle"),
              })
            : null,
          h("span", {
            class: `pill pill-${customer.status}`,
            text: labelOf("status", customer.status),
          }),
        ),
        h(
          "div",
          { class: "codes" },
          codeButton(customer.cuid, t("code.customer"), "🆔"),
          codeButton(customer.mobile, t("code.mobile"), "📱"),
          ...customer.connections.map((connection) =>
            codeButton(
              connection.id,
              t("code.connection", {
                service: connection.service.toUpperCase(),
                status: labelOf("status", connection.status),
              }),
              SERVICE_ICONS[connection.service] ?? "🔌",
              `connection connection-${connection.status}`,
            ),
          ),
        ),
        customer.note ? h("p", { class: "note", text: customer.note }) : null,
      );
    }),
  );
}

function renderTopups(topups) {
  ui.topupsCount.textContent = String(topups.length);
  if (topups.length === 0) {
    ui.topups.replaceChildren(
      h("li", {
        class: "topups-empty",
        text: t("topups.empty"),
      }),
    );
    return;
  }
  const first = state.knownTopups.size === 0;
  const detail = (label, value) =>
    value === undefined || value === null || value === ""
      ? null
      : h(
          "div",
          { class: "detail" },
          h("dt", { text: label }),
          h("dd", { text: String(value), title: String(value) }),
        );
  ui.topups.replaceChildren(
    ...[...topups].reverse().map((topup) => {
      const isNew = !first && !state.knownTopups.has(topup.txnId);
      state.knownTopups.add(topup.txnId);
      return h(
        "li",
        { class: `topup${isNew ? " appear" : ""}`, dataset: { txnId: topup.txnId } },
        h(
          "div",
          { class: "topup-head" },
          h("span", { class: "txn", text: topup.txnId }),
          h("span", { class: `pill pill-${topup.status}`, text: labelOf("status", topup.status) }),
        ),
        h(
          "div",
          { class: "topup-main" },
          h("span", { class: "service", text: SERVICE_ICONS[topup.service] ?? "🔌" }),
          h("span", { class: "bouquet", text: topup.bouquetId }),
          h("span", { class: "amount", text: `amt ${topup.amt}` }),
        ),
        h(
          "dl",
          { class: "details" },
          detail(t("topup.customer"), topup.cuid),
          detail(t("topup.connection"), topup.reqId),
          detail(t("topup.date"), topup.txnDate),
          detail(t("topup.api"), topup.version),
          detail("udf1", topup.udf1),
          detail(t("topup.order"), topup.orderId),
        ),
      );
    }),
  );
}

function setPanel(open) {
  ui.app.classList.toggle("panel-open", open);
  ui.panelToggle.setAttribute("aria-expanded", String(open));
  if (open) ui.panelClose.focus();
}

// ---------------------------------------------------------------------------------------
// Live events

function onChatEvent({ role, message }) {
  if (!ROLES.includes(role)) return;
  if (role === state.role && state.pendingEvents) {
    state.pendingEvents.push({ role, message });
    return;
  }
  const isNew = !state.known[role].has(message.id);
  state.known[role].add(message.id);
  if (message.deleted) invoiceWithdrawn(role, message.id);
  if (message.fromBot) {
    state.typingUntil[role] = 0;
    renderTypingPreview(role);
    if (role === state.role) renderHeader();
  }
  if (!message.deleted && message.id >= state.previewId[role]) setPreview(role, message);
  if (role === state.role && state.shownRole === role) {
    if (message.fromBot) settlePresses(role);
    upsertMessage(message);
  } else if (isNew && !message.deleted && message.fromBot) {
    state.unread[role] += 1;
    renderBadges();
  }
}

function onTyping({ role }) {
  if (!ROLES.includes(role)) return;
  state.typingUntil[role] = Date.now() + TYPING_MS;
  renderTypingPreview(role);
  if (role === state.role) renderHeader();
  setTimeout(() => {
    renderTypingPreview(role);
    if (role === state.role) renderHeader();
  }, TYPING_MS + 50);
}

function connect() {
  const events = new EventSource("/api/events");
  const parse = (listener) => (event) => {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    listener(data);
  };
  events.addEventListener("open", () => {
    const reconnect = state.everConnected;
    state.connected = true;
    state.everConnected = true;
    renderHeader();
    // Whatever happened while the stream was down: fetch the shown chat and the panel again.
    if (reconnect) {
      void loadChat(state.role);
      for (const role of ROLES) if (role !== state.role) void primeRole(role);
      void refreshSandbox();
    }
  });
  events.addEventListener("error", () => {
    state.connected = events.readyState === EventSource.OPEN;
    renderHeader();
  });
  events.addEventListener("chat", parse(onChatEvent));
  events.addEventListener(
    "keyboard",
    parse(({ role, keyboard }) => {
      if (ROLES.includes(role)) setKeyboard(role, keyboard);
    }),
  );
  events.addEventListener(
    "toast",
    parse(({ role, text, alert }) => {
      if (role !== state.role) return;
      settlePresses(role);
      if (alert) showAlert(text);
      else toast(text);
    }),
  );
  events.addEventListener("typing", parse(onTyping));
  events.addEventListener(
    "sandbox",
    parse(() => {
      void refreshSandbox();
    }),
  );
}

// ---------------------------------------------------------------------------------------
// Wiring

function wire() {
  // A chat read at its end stays at its end when the window (or the keyboard) changes size.
  ui.messages.addEventListener("scroll", () => {
    state.stuck = nearBottom();
  });
  new ResizeObserver(() => {
    if (state.stuck) scrollToBottom();
  }).observe(ui.messages);

  ui.roleSwitch.addEventListener("click", (event) => {
    const button = event.target.closest(".role-button");
    if (button) switchRole(button.dataset.role);
  });

  ui.messages.addEventListener("click", (event) => {
    const target = event.target;
    const webApp = target.closest("button.webapp-button");
    if (webApp) {
      void openMiniApp(webApp.dataset.webapp);
      return;
    }
    const payButton = target.closest("button.pay-button");
    if (payButton) {
      openCheckout(payButton);
      return;
    }
    const inline = target.closest("button.inline-button");
    if (inline) {
      void press(inline);
      return;
    }
    const command = target.closest(".bot-command");
    if (command) {
      void sendText(command.dataset.command);
      return;
    }
    const spoiler = target.closest(".spoiler:not(.revealed)");
    if (spoiler) {
      event.preventDefault();
      spoiler.classList.add("revealed");
    }
  });

  ui.replyKeyboard.addEventListener("click", (event) => {
    const button = event.target.closest(".reply-button");
    if (button) void tapReplyButton(button);
  });
  ui.keyboardToggle.addEventListener("click", () => {
    state.keyboardHidden[state.role] = !state.keyboardHidden[state.role];
    renderKeyboard();
  });

  ui.composerForm.addEventListener("submit", (event) => {
    event.preventDefault();
    submitComposer();
  });
  ui.composer.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submitComposer();
    } else if (event.key === "Escape") {
      closeMenu();
    } else if ((event.key === "ArrowUp" || event.key === "ArrowDown") && !ui.commandMenu.hidden) {
      event.preventDefault();
      const items = ui.commandMenu.querySelectorAll(".command-item");
      items[event.key === "ArrowDown" ? 0 : items.length - 1]?.focus();
    }
  });
  ui.composer.addEventListener("input", () => {
    autosize();
    const typed = ui.composer.value;
    if (/^\/\w*$/.test(typed)) openMenu({ filter: typed, focus: false });
    else closeMenu();
  });

  ui.menuButton.addEventListener("click", async () => {
    if (!ui.commandMenu.hidden) {
      closeMenu();
      return;
    }
    await refreshCommands(state.role);
    openMenu();
  });
  ui.commandMenu.addEventListener("click", (event) => {
    const item = event.target.closest(".command-item");
    if (!item) return;
    ui.composer.value = item.dataset.fill;
    closeMenu();
    autosize();
    ui.composer.focus();
    ui.composer.setSelectionRange(ui.composer.value.length, ui.composer.value.length);
  });
  ui.commandMenu.addEventListener("keydown", (event) => {
    const items = [...ui.commandMenu.querySelectorAll(".command-item")];
    const index = items.indexOf(document.activeElement);
    if (event.key === "Escape") {
      closeMenu();
      ui.menuButton.focus();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      items[(index + step + items.length) % items.length]?.focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (
      !ui.commandMenu.hidden &&
      !ui.commandMenu.contains(event.target) &&
      !ui.menuButton.contains(event.target) &&
      event.target !== ui.composer
    ) {
      closeMenu();
    }
  });

  ui.language.addEventListener("change", async () => {
    const language = ui.language.value;
    ui.language.disabled = true;
    try {
      const answer = await api("/api/language", { language });
      applyLanguage(answer.language);
      toast(t("language.changed"));
    } catch (error) {
      toast(error.message);
    } finally {
      ui.language.disabled = false;
    }
  });

  document.querySelector(".side-panel").addEventListener("click", (event) => {
    const code = event.target.closest(".code");
    if (!code) return;
    paste(code.dataset.code);
    if (window.matchMedia("(max-width: 760px)").matches) setPanel(false);
  });
  ui.panelToggle.addEventListener("click", () => {
    setPanel(!ui.app.classList.contains("panel-open"));
  });
  ui.panelClose.addEventListener("click", () => {
    setPanel(false);
    ui.panelToggle.focus();
  });

  ui.alertOk.addEventListener("click", closeAlert);
  ui.checkoutForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitCheckout();
  });
  ui.checkoutCancel.addEventListener("click", closeCheckout);
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (!ui.alert.hidden) closeAlert();
    else if (state.checkout) closeCheckout();
    else if (ui.app.classList.contains("panel-open")) setPanel(false);
  });
}

/**
 * The guide: a step per role, its commands tappable, and the last step of a top-up as
 * subscribers pay here (DEMO_PAYMENT_MODE); the form's hint names the test cards.
 */
function renderGuide() {
  const { mode, testCards } = state.payments;
  const who = (role) => h("strong", { text: `${t(`role.${role}`)}:` });
  const code = (text) => h("code", { text });
  const pay = h("span", {
    id: "guide-pay",
    text: t(`guide.pay.${mode in GUIDE_MODES ? mode : "none"}`),
  });
  ui.guideSteps.replaceChildren(
    h("li", {}, rich("guide.user", { who: who("user"), topup: code("/topup"), pay })),
    h(
      "li",
      {},
      rich("guide.support", {
        who: who("support"),
        lookup: code("/lookup 1000008"),
        recent: code("/recent"),
      }),
    ),
    h(
      "li",
      {},
      rich("guide.admin", {
        who: who("admin"),
        plans: code("/plans 1000001"),
        broadcast: code("/broadcast"),
        report: code("/report"),
        balance: code("/balance"),
      }),
    ),
  );
  ui.guideMenu.replaceChildren(
    rich("guide.menu", { menu: h("strong", { text: t("guide.menuName") }) }),
  );
  ui.checkoutHint.textContent = t("checkout.hint", testCards);
}

/** The payment modes the guide has words for. */
const GUIDE_MODES = {
  all: true,
  telegram: true,
  khalti: true,
  esewa: true,
  fonepay: true,
  none: true,
};

/** Every word of the page in `language`: its fixed labels, the guide, the chats drawn again. */
function applyLanguage(language) {
  setPageLanguage(language);
  ui.language.value = pageLanguage();
  document.documentElement.dataset.language = pageLanguage();
  translatePage();
  document.title = t("page.title", { bot: state.botName });
  // The menu's items are the bot's words in the old language: drawn afresh when next opened.
  closeMenu();
  ui.commandMenu.replaceChildren();
  renderGuide();
  renderHeader();
  renderBadges();
  renderKeyboard();
  for (const role of ROLES) {
    const preview = $(`preview-${role}`);
    if (preview && state.previewId[role] === 0 && !preview.classList.contains("typing")) {
      preview.textContent = t(`idle.${role}`);
    }
  }
  const checkout = state.checkout;
  if (checkout) {
    const amount = focusBeforeCheckout?.dataset.amount ?? "";
    ui.checkoutPay.textContent = t("checkout.pay", { amount });
  }
  // The chats as the bot sent them, with the page's words (dates, "edited", "Paid") anew.
  if (state.shownRole) void loadChat(state.role);
  for (const role of ROLES) if (role !== state.role) void primeRole(role);
  void refreshSandbox();
}

async function start() {
  wire();
  try {
    const bootstrap = await api("/api/bootstrap");
    state.botName = bootstrap.botName ?? state.botName;
    state.roles = bootstrap.roles ?? {};
    ui.apiVersion.textContent = `API ${bootstrap.apiVersion}`;
    ui.apiVersion.dataset.version = bootstrap.apiVersion;
    if (bootstrap.payments) state.payments = bootstrap.payments;
    setPageLanguage(bootstrap.language);
  } catch (error) {
    toast(t("toast.noAnswer", { reason: error.message }));
  }
  ui.language.value = pageLanguage();
  document.documentElement.dataset.language = pageLanguage();
  translatePage();
  document.title = t("page.title", { bot: state.botName });
  renderGuide();
  for (const role of ROLES) $(`preview-${role}`).textContent = t(`idle.${role}`);
  connect();
  state.role = "user";
  state.shownRole = null;
  switchRole("user");
  for (const role of ROLES) if (role !== "user") void primeRole(role);
  void refreshSandbox();
  ui.composer.focus();
  document.body.dataset.ready = "true";
}

void start();

// ---------------------------------------------------------------------------------------------
// The bot's Mini App, hosted beside the chat as Telegram hosts it: in a frame, its address
// carrying initData the playground signs with the bot's token (/api/webapp), and a stand-in for
// Telegram's bridge: the app's events (web_app_open_invoice, web_app_open_link,
// web_app_request_phone, web_app_close) arrive as messages from the frame; an invoice is paid
// with the paying test card, and the person's own number is shared in the chat.

let miniApp = null;

async function openMiniApp(url) {
  closeMiniApp();
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  const { src } = await api("/api/webapp", { role: state.role, url, dark });
  const frame = h("iframe", { src, title: "Mini App", class: "mini-app-frame" });
  const close = h("button", {
    type: "button",
    id: "mini-app-close",
    text: "✕",
    "aria-label": "Close",
  });
  close.addEventListener("click", closeMiniApp);
  const overlay = h("div", { id: "mini-app", class: "mini-app", role: "dialog" }, close, frame);
  document.body.append(overlay);
  miniApp = { overlay, frame, role: state.role };
}

function closeMiniApp() {
  miniApp?.overlay.remove();
  miniApp = null;
}

/** Tells the app an event, as Telegram's web client does (a message to its frame). */
function toMiniApp(eventType, eventData) {
  miniApp?.frame.contentWindow?.postMessage(JSON.stringify({ eventType, eventData }), "*");
}

window.addEventListener("message", async (event) => {
  if (!miniApp || event.source !== miniApp.frame.contentWindow) return;
  let message;
  try {
    message = JSON.parse(String(event.data));
  } catch {
    return;
  }
  const data = message.eventData ?? {};
  switch (message.eventType) {
    case "web_app_open_invoice": {
      const result = await api("/api/invoice-link", {
        role: miniApp.role,
        url: `https://t.me/$${data.slug}`,
      });
      toMiniApp("invoice_closed", {
        slug: data.slug,
        status: result.kind === "paid" ? "paid" : "failed",
      });
      return;
    }
    case "web_app_open_link":
      window.open(String(data.url), "_blank", "noopener");
      return;
    case "web_app_request_phone": {
      const { status } = await api("/api/request-phone", { role: miniApp.role });
      toMiniApp("phone_requested", { status });
      return;
    }
    case "web_app_close":
      closeMiniApp();
      return;
  }
});

// The chat's menu button when the bot set it to its Mini App (setChatMenuButton): beside the
// text box, as Telegram draws it; it opens the app as a web_app button does.
const menuApps = {};

function setMenuApp(role, menuApp) {
  menuApps[role] = menuApp ?? null;
  if (role === state.role) renderMenuApp();
}

function renderMenuApp() {
  let button = document.getElementById("menu-app");
  const menuApp = menuApps[state.role];
  if (!menuApp) {
    button?.remove();
    return;
  }
  if (!button) {
    button = h("button", { type: "button", id: "menu-app", class: "menu-button menu-app-button" });
    button.addEventListener("click", () => void openMiniApp(button.dataset.url));
    ui.composer.before(button);
  }
  button.textContent = menuApp.text;
  button.dataset.url = menuApp.url;
}
