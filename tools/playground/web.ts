// The playground's web server: the page, a JSON API to act as the simulated people, and a
// Server-Sent Events stream of everything that changes in their chats.
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { sign } from "@telegram-apps/init-data-node";
import type { Message } from "grammy/types";
import type { Sandbox } from "../sandbox/server.js";
import type {
  ChatUser,
  PaymentResult,
  StoredMessage,
  TelegramEmulator,
} from "../telegram-emulator/index.js";
import type { DemoPaymentMode } from "./payment-modes.js";
import { cardOutcome, TEST_CARDS } from "./test-cards.js";

type Role = "user" | "admin" | "support";
interface RoleSpec {
  id: number;
  chatId: number;
  first_name: string;
  phone?: string;
  /** For the support role: the title of the allow-listed group. */
  group?: string;
}
export type Roles = Record<Role, RoleSpec>;

export interface WebOptions {
  host: string;
  port: number;
  emulator: TelegramEmulator;
  sandbox: Sandbox;
  roles: Roles;
  apiVersion: string;
  /** How subscribers pay: the page's guide says it. */
  paymentMode: DemoPaymentMode;
  /** The playground bot's token: the stand-in for Telegram signs the Mini App's initData. */
  botToken: string;
  /** The Mini App's address (the bot's PUBLIC_URL/app/), when the bot offers one. */
  miniAppUrl: string | undefined;
}

/** Telegram's colours, light and dark, as a client passes them to a Mini App (themeParams). */
const THEMES = {
  light: {
    bg_color: "#ffffff",
    text_color: "#000000",
    hint_color: "#707579",
    link_color: "#3390ec",
    button_color: "#3390ec",
    button_text_color: "#ffffff",
    secondary_bg_color: "#f4f4f5",
  },
  dark: {
    bg_color: "#212121",
    text_color: "#ffffff",
    hint_color: "#aaaaaa",
    link_color: "#8774e1",
    button_color: "#8774e1",
    button_text_color: "#ffffff",
    secondary_bg_color: "#181818",
  },
};

/** A chat message as the page draws it. */
interface PageMessage {
  id: number;
  fromBot: boolean;
  sender: string;
  text: string;
  entities: Message["entities"];
  /** A photo: `url` serves its bytes when the bot uploaded them (a link it gave is not fetched). */
  photo?: { url?: string };
  /** A document, drawn as a file card: its name, size and a link serving its bytes. */
  document?: { name: string; size?: number; url?: string };
  contact?: string;
  /** An invoice, drawn as Telegram's card: its own fields, never the message text. */
  invoice?: PageInvoice;
  /** A successful_payment service message: what was paid. */
  payment?: { amount: string };
  inlineKeyboard: { text: string; data?: string; url?: string; pay?: true; webApp?: string }[][];
  edited: boolean;
  deleted: boolean;
  date: number;
}

interface PageInvoice {
  title: string;
  description: string;
  /** "NPR 700.00", from the total in minor units, in the people's language. */
  amount: string;
  /** Paid from this page: Telegram shows a receipt instead of a Pay button. */
  paid: boolean;
}

/** How a payment from the page ended, as the checkout form tells it. */
type PageCheckout =
  | { kind: "paid" | "declined" | "timeout" | "invalid-card" }
  | { kind: "refused"; errorMessage: string }
  | { kind: "unavailable"; reason: string };

/**
 * Where the page stands in for t.me (the bot's TELEGRAM_LINK_ROOT): a link into Telegram, such
 * as the payment pages' "Back to Telegram", opens the page's chat instead of leaving it.
 */
export const TELEGRAM_LINKS = "/t.me";

const PUBLIC = new URL("./public/", import.meta.url);
const STATIC: Record<string, [string, string]> = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/app.js": ["app.js", "text/javascript; charset=utf-8"],
  "/i18n.js": ["i18n.js", "text/javascript; charset=utf-8"],
  "/style.css": ["style.css", "text/css; charset=utf-8"],
};

/** What the page is told a file is, by its name's extension; images are shown, others saved. */
const FILE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  csv: "text/csv; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  json: "application/json",
  pdf: "application/pdf",
};

/** Where the page gets the bytes of a file the bot uploaded. */
const fileUrl = (fileId: string) => `/api/files/${encodeURIComponent(fileId)}`;

function toPageMessage(
  stored: StoredMessage,
  paid: boolean,
  uploaded: (fileId: string) => boolean,
  language: string,
): PageMessage {
  const message = stored.message;
  const { invoice, successful_payment: payment, document } = message;
  // Telegram lists a photo's sizes smallest first: the emulator keeps one, the upload.
  const photo = message.photo?.at(-1);
  return {
    id: stored.messageId,
    fromBot: stored.sentByBot,
    sender: message.from?.first_name ?? "",
    text: message.text ?? message.caption ?? "",
    entities: message.entities ?? message.caption_entities ?? [],
    photo: photo && { url: uploaded(photo.file_id) ? fileUrl(photo.file_id) : undefined },
    document: document && {
      name: document.file_name ?? "file",
      size: document.file_size,
      url: uploaded(document.file_id) ? fileUrl(document.file_id) : undefined,
    },
    contact: message.contact?.phone_number,
    invoice: invoice && {
      title: invoice.title,
      description: invoice.description,
      amount: formatAmount(invoice.currency, invoice.total_amount, language),
      paid,
    },
    payment: payment && {
      amount: formatAmount(payment.currency, payment.total_amount, language),
    },
    inlineKeyboard: (message.reply_markup?.inline_keyboard ?? []).map((row) =>
      row.map((button) => ({
        text: button.text,
        data: "callback_data" in button ? button.callback_data : undefined,
        url: "url" in button ? button.url : undefined,
        pay: "pay" in button && button.pay === true ? true : undefined,
        webApp: "web_app" in button ? button.web_app?.url : undefined,
      })),
    ),
    edited: message.edit_date !== undefined,
    deleted: stored.deleted,
    date: message.date,
  };
}

/**
 * "NPR 700.00" from 70000 (the currency's minor units), as the person's Telegram writes it in
 * their language ("नेरू ७००.००" in Nepali, as the bot does). Here, not in the page: a browser's
 * Intl may lack Nepali (Debian's Chromium does).
 */
function formatAmount(currency: string, minor: number, language: string): string {
  const format = new Intl.NumberFormat(language === "ne" ? "ne-NP" : "en", {
    style: "currency",
    currency,
  });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}

/** What the page needs of a payment's end (the emulator's result carries updates and ids). */
function toPageCheckout(result: PaymentResult): PageCheckout {
  switch (result.kind) {
    case "refused":
      return { kind: "refused", errorMessage: result.errorMessage };
    case "unavailable":
      return { kind: "unavailable", reason: result.reason };
    default:
      return { kind: result.kind };
  }
}

export async function startWeb(options: WebOptions): Promise<Server> {
  const { emulator, sandbox, roles } = options;
  let language = "en";
  /** Invoices paid from the page, "chatId:messageId": the emulator keeps that to itself. */
  const paidInvoices = new Set<string>();
  const invoiceKey = (chatId: number, messageId: number) => `${chatId}:${messageId}`;
  const uploaded = (fileId: string) => emulator.file(fileId)?.upload !== undefined;
  const toPage = (stored: StoredMessage) =>
    toPageMessage(
      stored,
      paidInvoices.has(invoiceKey(stored.chatId, stored.messageId)),
      uploaded,
      language,
    );
  const drivers = new Map<Role, ChatUser>();
  const driver = (role: Role): ChatUser => {
    const existing = drivers.get(role);
    if (existing) return existing;
    const spec = roles[role];
    const person = {
      id: spec.id,
      first_name: spec.first_name,
      language_code: language,
      phone_number: spec.phone,
    };
    const created = spec.group
      ? emulator.group({ id: spec.chatId, title: spec.group, type: "supergroup" }).member(person)
      : emulator.user(person);
    drivers.set(role, created);
    return created;
  };
  const roleOfChat = (chatId: number) =>
    (Object.keys(roles) as Role[]).find((role) => roles[role].chatId === chatId);
  for (const role of Object.keys(roles) as Role[]) driver(role);

  const streams = new Set<ServerResponse>();
  const push = (event: string, data: unknown) => {
    for (const stream of streams)
      stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  emulator.onEvent((event) => {
    if (event.type === "message" || event.type === "edit" || event.type === "delete") {
      const role = roleOfChat(event.chatId);
      const stored = emulator.messages(event.chatId);
      const id = event.type === "delete" ? event.messageId : event.message.message_id;
      const changed = stored.find((entry) => entry.messageId === id);
      if (role && changed) push("chat", { role, message: toPage(changed) });
      if (role) push("keyboard", { role, keyboard: driver(role).replyKeyboard() });
    } else if (event.type === "callback-answer" && event.answer.text) {
      const role = roleOfChat(event.chatId);
      if (role) push("toast", { role, text: event.answer.text, alert: event.answer.showAlert });
    } else if (event.type === "chat-action") {
      const role = roleOfChat(event.chatId);
      if (role) push("typing", { role });
    }
  });
  let topups = 0;
  const watch = setInterval(() => {
    if (sandbox.topups.length !== topups) {
      topups = sandbox.topups.length;
      push("sandbox", { topups });
    }
  }, 300);

  /** The invoice drawn again, now with its receipt instead of the Pay button. */
  const markPaid = (role: Role, messageId: number) => {
    const chatId = roles[role].chatId;
    paidInvoices.add(invoiceKey(chatId, messageId));
    const stored = emulator.messages(chatId).find((entry) => entry.messageId === messageId);
    if (stored) push("chat", { role, message: toPage(stored) });
  };
  /** The checkout form's Pay: the test card decides the outcome, the bot is asked first. */
  const pay = async (body: Record<string, unknown>): Promise<PageCheckout> => {
    const role = roleOf(body);
    const messageId = Number(body.messageId);
    const outcome = cardOutcome(String(body.cardNumber ?? ""));
    if (outcome === "invalid") return { kind: "invalid-card" };
    const result = await driver(role).pay(messageId, { outcome });
    if (result.kind === "paid") markPaid(role, messageId);
    return toPageCheckout(result);
  };

  const routes: Record<string, (body: Record<string, unknown>) => unknown> = {
    "GET /api/bootstrap": () => ({
      roles,
      language,
      apiVersion: options.apiVersion,
      botName: "Top-up Bot",
      payments: { mode: options.paymentMode, testCards: TEST_CARDS },
      miniApp: options.miniAppUrl ?? null,
    }),
    "GET /api/sandbox": () => ({ customers: sandbox.directory(), topups: sandbox.topups }),
    "POST /api/send": (body) => {
      const text = String(body.text ?? "").slice(0, 4096);
      if (text.trim() !== "") driver(roleOf(body)).sendText(text);
      return { ok: true };
    },
    "POST /api/press": (body) => {
      driver(roleOf(body)).pressData(String(body.data), Number(body.messageId));
      return { ok: true };
    },
    "POST /api/pay": pay,
    // The stand-in for Telegram's Mini App launch: the app's address with initData signed by
    // the bot's token for this person, and the theme (a real client does the same).
    "POST /api/webapp": (body) => {
      const role = roleOf(body);
      const url = String(body.url ?? options.miniAppUrl ?? "");
      if (!options.miniAppUrl || !url.startsWith(options.miniAppUrl)) {
        throw new Error("not the bot's Mini App");
      }
      const spec = roles[role];
      const initData = sign(
        { user: { id: spec.id, first_name: spec.first_name, language_code: language } },
        options.botToken,
        new Date(),
      );
      const theme = body.dark === true ? THEMES.dark : THEMES.light;
      const launch = new URLSearchParams({
        tgWebAppData: initData,
        tgWebAppVersion: "8.0",
        tgWebAppPlatform: "web",
        tgWebAppThemeParams: JSON.stringify(theme),
      });
      return { src: `${url}#${launch}` };
    },
    // openInvoice: the invoice link paid with the test card the page's form took.
    "POST /api/invoice-link": async (body) => {
      const outcome = cardOutcome(String(body.cardNumber ?? TEST_CARDS.paying));
      if (outcome === "invalid") return { kind: "invalid-card" };
      const result = await driver(roleOf(body)).payInvoiceLink(String(body.url), { outcome });
      return toPageCheckout(result);
    },
    // requestContact: the person's own number sent to the bot as their message, as Telegram
    // does once they agree (the stand-in agrees for them); "cancelled" for one without a number.
    "POST /api/request-phone": (body) => {
      const role = roleOf(body);
      if (!roles[role].phone) return { status: "cancelled" };
      driver(role).sendContact();
      return { status: "sent" };
    },
    "POST /api/reply-button": (body) => {
      driver(roleOf(body)).tapReplyButton(String(body.text));
      return { ok: true };
    },
    "POST /api/language": (body) => {
      language = body.language === "ne" ? "ne" : "en";
      drivers.clear();
      for (const role of Object.keys(roles) as Role[]) driver(role);
      return { ok: true, language };
    },
  };
  /** The chat's menu button, when it opens a Mini App: its label and address. */
  const menuApp = (role: Role) => {
    const button = driver(role).menuButton();
    return button?.type === "web_app" ? { text: button.text, url: button.web_app.url } : null;
  };
  const chatRoute = (role: Role) => ({
    messages: emulator.messages(roles[role].chatId).map(toPage),
    keyboard: driver(role).replyKeyboard(),
    // The bot's command menu as Telegram shows it in this chat, in the person's language.
    commands: driver(role).commands(),
    menuApp: menuApp(role),
  });

  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? "/", "http://localhost").pathname;
      if (request.method === "GET" && path.startsWith(`${TELEGRAM_LINKS}/`)) {
        response.writeHead(302, { location: "/", "cache-control": "no-store" }).end();
        return;
      }
      const file = STATIC[path];
      if (request.method === "GET" && file) {
        const body = await readFile(new URL(file[0], PUBLIC));
        response.writeHead(200, { "content-type": file[1], "cache-control": "no-store" }).end(body);
        return;
      }
      if (request.method === "GET" && path === "/api/events") {
        response.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-store",
          connection: "keep-alive",
        });
        response.write(": connected\n\n");
        streams.add(response);
        request.on("close", () => streams.delete(response));
        return;
      }
      const upload = /^\/api\/files\/([^/]+)$/.exec(path);
      if (request.method === "GET" && upload) {
        serveFile(response, emulator.file(decodeURIComponent(upload[1] ?? ""))?.upload);
        return;
      }
      const chat = /^\/api\/chat\/(user|admin|support)$/.exec(path);
      if (request.method === "GET" && chat) {
        json(response, 200, chatRoute(chat[1] as Role));
        return;
      }
      // The menu as the bot set it now (it sets it at start, perhaps after the page loaded).
      const menu = /^\/api\/commands\/(user|admin|support)$/.exec(path);
      if (request.method === "GET" && menu) {
        const role = menu[1] as Role;
        json(response, 200, { commands: driver(role).commands(), menuApp: menuApp(role) });
        return;
      }
      const route = routes[`${request.method} ${path}`];
      if (!route) {
        json(response, 404, { error: "not found" });
        return;
      }
      json(response, 200, await route(request.method === "POST" ? await readJson(request) : {}));
    } catch (error) {
      json(response, 400, { error: (error as Error).message });
    }
  });
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(": ping\n\n");
  }, 15_000);
  server.on("close", () => {
    clearInterval(heartbeat);
    clearInterval(watch);
    for (const stream of streams) stream.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  return server;
}

/** An uploaded file's bytes: an image to show, anything else to save under its own name. */
function serveFile(
  response: ServerResponse,
  upload: { filename: string; bytes: Buffer } | undefined,
): void {
  if (!upload) {
    json(response, 404, { error: "no such file" });
    return;
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(upload.filename)?.[1]?.toLowerCase() ?? "";
  const type = FILE_TYPES[extension] ?? "application/octet-stream";
  const name = encodeURIComponent(upload.filename);
  response
    .writeHead(200, {
      "content-type": type,
      "content-length": upload.bytes.length,
      "content-disposition": `${type.startsWith("image/") ? "inline" : "attachment"}; filename*=UTF-8''${name}`,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    })
    .end(upload.bytes);
}

function roleOf(body: Record<string, unknown>): Role {
  const role = body.role;
  if (role === "user" || role === "admin" || role === "support") return role;
  throw new Error("role must be user, admin or support");
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 64_000) throw new Error("request too large");
    chunks.push(chunk as Buffer);
  }
  const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  return typeof parsed === "object" && parsed !== null ? parsed : {};
}
