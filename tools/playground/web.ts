// The playground's web server: the page, a JSON API to act as the simulated people, and a
// Server-Sent Events stream of everything that changes in their chats.
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
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
}

/** A chat message as the page draws it. */
interface PageMessage {
  id: number;
  fromBot: boolean;
  sender: string;
  text: string;
  entities: Message["entities"];
  photo: boolean;
  contact?: string;
  /** An invoice, drawn as Telegram's card: its own fields, never the message text. */
  invoice?: PageInvoice;
  /** A successful_payment service message: what was paid. */
  payment?: { amount: string };
  inlineKeyboard: { text: string; data?: string; url?: string; pay?: true }[][];
  edited: boolean;
  deleted: boolean;
  date: number;
}

interface PageInvoice {
  title: string;
  description: string;
  /** "NPR 700.00", from the total in minor units. */
  amount: string;
  /** Paid from this page: Telegram shows a receipt instead of a Pay button. */
  paid: boolean;
}

/** How a payment from the page ended, as the checkout form tells it. */
type PageCheckout =
  | { kind: "paid" | "declined" | "timeout" | "invalid-card" }
  | { kind: "refused"; errorMessage: string }
  | { kind: "unavailable"; reason: string };

const PUBLIC = new URL("./public/", import.meta.url);
const STATIC: Record<string, [string, string]> = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/app.js": ["app.js", "text/javascript; charset=utf-8"],
  "/style.css": ["style.css", "text/css; charset=utf-8"],
};

function toPageMessage(stored: StoredMessage, paid: boolean): PageMessage {
  const message = stored.message;
  const { invoice, successful_payment: payment } = message;
  return {
    id: stored.messageId,
    fromBot: stored.sentByBot,
    sender: message.from?.first_name ?? "",
    text: message.text ?? message.caption ?? "",
    entities: message.entities ?? message.caption_entities ?? [],
    photo: message.photo !== undefined,
    contact: message.contact?.phone_number,
    invoice: invoice && {
      title: invoice.title,
      description: invoice.description,
      amount: formatAmount(invoice.currency, invoice.total_amount),
      paid,
    },
    payment: payment && { amount: formatAmount(payment.currency, payment.total_amount) },
    inlineKeyboard: (message.reply_markup?.inline_keyboard ?? []).map((row) =>
      row.map((button) => ({
        text: button.text,
        data: "callback_data" in button ? button.callback_data : undefined,
        url: "url" in button ? button.url : undefined,
        pay: "pay" in button && button.pay === true ? true : undefined,
      })),
    ),
    edited: message.edit_date !== undefined,
    deleted: stored.deleted,
    date: message.date,
  };
}

/** "NPR 700.00" from 70000, as Telegram's Pay button reads (the currency's minor units). */
function formatAmount(currency: string, minor: number): string {
  const format = new Intl.NumberFormat("en", { style: "currency", currency });
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
  const toPage = (stored: StoredMessage) =>
    toPageMessage(stored, paidInvoices.has(invoiceKey(stored.chatId, stored.messageId)));
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
  const chatRoute = (role: Role) => ({
    messages: emulator.messages(roles[role].chatId).map(toPage),
    keyboard: driver(role).replyKeyboard(),
  });

  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? "/", "http://localhost").pathname;
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
      const chat = /^\/api\/chat\/(user|admin|support)$/.exec(path);
      if (request.method === "GET" && chat) {
        json(response, 200, chatRoute(chat[1] as Role));
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
