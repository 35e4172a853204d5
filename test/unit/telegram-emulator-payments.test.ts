import { setTimeout as sleep } from "node:timers/promises";
import { Api, Bot, InlineKeyboard } from "grammy";
import type { LabeledPrice, Message, Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatUser,
  createTelegramEmulator,
  type TelegramEmulator,
} from "../../tools/telegram-emulator/index.js";
import { apiError } from "../support/api-error.js";
import { until } from "../support/wait.js";

const TOKEN = "424242:payments-bot";
const PROVIDER = "284685063:TEST:provider-token";
const PRICES: LabeledPrice[] = [
  { label: "Gold, 30 days", amount: 1000 },
  { label: "Fee", amount: 250 },
];

describe("payments with a grammY bot", () => {
  let emulator: TelegramEmulator;
  let bot: Bot;
  let polling: Promise<void>;
  const seen: Update[] = [];
  /** How the bot answers the next pre-checkout queries. */
  let checkout: "ok" | "refuse" | "twice" = "ok";
  const secondAnswers: unknown[] = [];
  let nextUser = 7000;

  beforeAll(async () => {
    emulator = await createTelegramEmulator();
    bot = new Bot(TOKEN, { client: { apiRoot: emulator.apiRoot } });
    bot.use((ctx, next) => {
      seen.push(ctx.update);
      return next();
    });
    bot.command("start", (ctx) => ctx.reply(`start: ${ctx.match}`));
    bot.command("buylinked", (ctx) =>
      ctx.replyWithInvoice("Gold plan", "30 days of Gold", `order:${ctx.chat.id}`, "USD", PRICES, {
        provider_token: PROVIDER,
        start_parameter: "someone-elses",
      }),
    );
    bot.command("buy", (ctx) =>
      ctx.replyWithInvoice("Gold plan", "30 days of Gold", `order:${ctx.chat.id}`, "USD", PRICES, {
        provider_token: PROVIDER,
      }),
    );
    bot.on("pre_checkout_query", async (ctx) => {
      if (checkout === "refuse") {
        await ctx.answerPreCheckoutQuery(false, "Sold out, sorry");
        return;
      }
      await ctx.answerPreCheckoutQuery(true);
      if (checkout === "twice")
        secondAnswers.push(await apiError(ctx.answerPreCheckoutQuery(true)));
    });
    bot.on("message:successful_payment", (ctx) =>
      ctx.reply(`Paid ${ctx.message.successful_payment.total_amount}`),
    );
    await new Promise<void>((resolve) => {
      polling = bot.start({ timeout: 1, onStart: () => resolve() });
    });
  });

  afterAll(async () => {
    await bot.stop();
    await polling;
    await emulator.close();
  });

  /** A new user with the bot's invoice on screen. */
  async function withInvoice(): Promise<{ user: ChatUser; invoice: Message }> {
    checkout = "ok";
    const user = emulator.user({ id: ++nextUser, first_name: "Payer", language_code: "en" });
    const shown = user.waitForMessage((message) => message.invoice !== undefined);
    user.sendText("/buy");
    return { user, invoice: await shown };
  }

  const paymentsSeenBy = (chatId: number) =>
    seen.filter((u) => u.message?.successful_payment && u.message.chat.id === chatId);

  it("refuses invoices beyond Telegram's limits with 400", async () => {
    const chatId = emulator.user({ id: ++nextUser, first_name: "Limits" }).id;
    const send = (
      changes: { title?: string; description?: string; payload?: string; currency?: string },
      prices: LabeledPrice[] = PRICES,
      other: Parameters<Api["sendInvoice"]>[6] = { provider_token: PROVIDER },
    ) =>
      apiError(
        bot.api.sendInvoice(
          chatId,
          changes.title ?? "Gold plan",
          changes.description ?? "30 days",
          changes.payload ?? "order:1",
          changes.currency ?? "USD",
          prices,
          other,
        ),
      );
    const refusals = [
      await send({ title: "t".repeat(33) }),
      await send({ description: "d".repeat(256) }),
      // 129 bytes in 65 characters: the limit is in bytes.
      await send({ payload: `${"ж".repeat(64)}x` }),
      await send({}, [{ label: "Gold", amount: 10.5 }]),
      await send({ currency: "ABC" }),
      await send({ currency: "usd" }),
      await send({}, []),
      await send({}, [{ label: "Refund", amount: -100 }]),
      await send({}, PRICES, { provider_token: "" }),
      await send({}, PRICES, {
        provider_token: PROVIDER,
        reply_markup: new InlineKeyboard().text("Details", "details").pay("Pay"),
      }),
    ];
    expect(refusals.map((e) => [e.error_code, e.description])).toEqual([
      [400, "Bad Request: INVOICE_TITLE_TOO_LONG"],
      [400, "Bad Request: INVOICE_DESCRIPTION_TOO_LONG"],
      [400, "Bad Request: INVOICE_PAYLOAD_INVALID"],
      [400, 'Bad Request: can\'t parse labeled price: Field "amount" must be a valid Number'],
      [400, "Bad Request: CURRENCY_INVALID"],
      [400, "Bad Request: CURRENCY_INVALID"],
      [400, "Bad Request: there must be at least one price"],
      [400, "Bad Request: total price must be positive"],
      [400, "Bad Request: PAYMENT_PROVIDER_INVALID"],
      [400, "Bad Request: REPLY_MARKUP_BUY_EMPTY"],
    ]);

    // At the limits it is accepted: 32 characters, 255 characters, 128 bytes.
    const accepted: Message = await bot.api.sendInvoice(
      chatId,
      "т".repeat(32),
      "d".repeat(255),
      "ж".repeat(64),
      "JPY",
      [{ label: "Gold", amount: 500 }],
      { provider_token: PROVIDER },
    );
    expect(accepted.invoice).toEqual({
      title: "т".repeat(32),
      description: "d".repeat(255),
      start_parameter: "",
      currency: "JPY",
      total_amount: 500,
    });
    expect(accepted.reply_markup).toEqual({ inline_keyboard: [[{ text: "Pay ¥500", pay: true }]] });
  });

  it("takes form-encoded parameters, amounts as strings included", async () => {
    const chatId = emulator.user({ id: ++nextUser, first_name: "Form" }).id;
    const body = new URLSearchParams({
      chat_id: String(chatId),
      title: "Gold",
      description: "30 days",
      payload: "p",
      provider_token: PROVIDER,
      currency: "EUR",
      prices: JSON.stringify([{ label: "Gold", amount: "1999" }]),
      start_parameter: "gold",
    });
    const response = await fetch(`${emulator.apiRoot}/bot${TOKEN}/sendInvoice`, {
      method: "POST",
      body,
    });
    const answer = (await response.json()) as { ok: boolean; result: Message };
    expect(answer.ok).toBe(true);
    expect(answer.result.invoice).toMatchObject({ start_parameter: "gold", total_amount: 1999 });
    expect(answer.result.reply_markup?.inline_keyboard).toEqual([
      [{ text: "Pay €19.99", pay: true }],
    ]);
  });

  it("shows the invoice with its Pay button, keeping the payload out of the message", async () => {
    const { user, invoice } = await withInvoice();
    expect(invoice.invoice).toEqual({
      title: "Gold plan",
      description: "30 days of Gold",
      start_parameter: "",
      currency: "USD",
      total_amount: 1250,
    });
    expect(JSON.stringify(invoice)).not.toContain("order:");
    expect(user.inlineButtons(invoice)).toEqual([["Pay $12.50"]]);
    expect(() => user.press("Pay $12.50")).toThrow(/is a Pay button: use pay\(/);
  });

  it("pays: pre_checkout_query, the bot's ok, then successful_payment to the polling bot", async () => {
    const { user, invoice } = await withInvoice();
    const thanks = user.waitForText("Paid 1250");
    const result = await user.pay(invoice.message_id, { providerChargeId: "ch_provider_1" });
    if (result.kind !== "paid") throw new Error(`expected paid, got ${result.kind}`);
    await thanks;

    expect(result.preCheckoutQuery).toMatchObject({
      from: { id: user.id, first_name: "Payer" },
      currency: "USD",
      total_amount: 1250,
      invoice_payload: `order:${user.id}`,
    });
    const query = seen.find((u) => u.pre_checkout_query?.id === result.preCheckoutQuery.id);
    expect(query?.pre_checkout_query).toEqual(result.preCheckoutQuery);
    expect(emulator.preCheckoutAnswers().at(-1)).toEqual({
      preCheckoutQueryId: result.preCheckoutQuery.id,
      userId: user.id,
      chatId: user.id,
      messageId: invoice.message_id,
      ok: true,
      errorMessage: undefined,
    });

    expect(result.providerChargeId).toBe("ch_provider_1");
    expect(result.message.from?.id).toBe(user.id);
    expect(result.message.successful_payment).toEqual({
      currency: "USD",
      total_amount: 1250,
      invoice_payload: `order:${user.id}`,
      telegram_payment_charge_id: result.telegramChargeId,
      provider_payment_charge_id: "ch_provider_1",
    });
    const delivered = paymentsSeenBy(user.id);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toEqual(result.update);
  });

  it("delivers the same successful_payment update again when injected (a duplicate)", async () => {
    const { user, invoice } = await withInvoice();
    const result = await user.pay(invoice.message_id);
    if (result.kind !== "paid" || !result.update) throw new Error("expected a delivered payment");
    await user.waitForText("Paid 1250");

    const again = user.waitForText("Paid 1250");
    emulator.injectUpdate(TOKEN, result.update);
    await again;
    const delivered = paymentsSeenBy(user.id);
    expect(delivered).toHaveLength(2);
    expect(delivered[1]).toEqual(delivered[0]);
  });

  it("lets whoever gets a forwarded copy without start_parameter pay it, in their own name and chat", async () => {
    const { user, invoice } = await withInvoice();
    const friend = emulator.user({ id: ++nextUser, first_name: "Friend" });
    const thanks = friend.waitForText("Paid 1250");
    const result = await friend.payForwarded(user.chatId, invoice.message_id);
    if (result.kind !== "paid") throw new Error(`expected paid, got ${result.kind}`);
    await thanks;
    expect(result.preCheckoutQuery.from.id).toBe(friend.id);
    expect(result.preCheckoutQuery.invoice_payload).toBe(`order:${user.id}`);
    expect(result.message.chat.id).toBe(friend.chatId);
    expect(paymentsSeenBy(friend.chatId)).toHaveLength(1);
    expect(paymentsSeenBy(user.chatId)).toHaveLength(0);
  });

  it("opens the bot with /start <start_parameter> from a forwarded copy that has one", async () => {
    const user = emulator.user({ id: ++nextUser, first_name: "Linked" });
    const shown = user.waitForMessage((message) => message.invoice !== undefined);
    user.sendText("/buylinked");
    const invoice = await shown;
    expect(invoice.invoice?.start_parameter).toBe("someone-elses");
    const friend = emulator.user({ id: ++nextUser, first_name: "Friend" });
    const answer = friend.waitForText("start: someone-elses");
    const result = await friend.payForwarded(user.chatId, invoice.message_id);
    expect(result).toMatchObject({ kind: "opened-bot", startParameter: "someone-elses" });
    await answer;
    // A copy that kept its Pay button anyway is paid by the friend, as Telegram would.
    const copied = await friend.payForwarded(user.chatId, invoice.message_id, {
      ignoreStartParameter: true,
    });
    expect(copied.kind === "paid" && copied.preCheckoutQuery.from.id).toBe(friend.id);
  });

  it("ends with the bot's refusal and its error message, and nothing is paid", async () => {
    const { user, invoice } = await withInvoice();
    checkout = "refuse";
    const result = await user.pay(invoice.message_id);
    expect(result).toMatchObject({ kind: "refused", errorMessage: "Sold out, sorry" });
    expect(emulator.preCheckoutAnswers().at(-1)).toMatchObject({
      ok: false,
      errorMessage: "Sold out, sorry",
    });
    await sleep(100);
    expect(paymentsSeenBy(user.id)).toEqual([]);
    // Refused is not paid: the user can try again.
    checkout = "ok";
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
  });

  it("posts nothing when the card is declined after the bot's ok", async () => {
    const { user, invoice } = await withInvoice();
    const result = await user.pay(invoice.message_id, { outcome: "declined" });
    expect(result.kind).toBe("declined");
    expect(emulator.preCheckoutAnswers().at(-1)).toMatchObject({ userId: user.id, ok: true });
    await sleep(100);
    expect(paymentsSeenBy(user.id)).toEqual([]);
    expect(emulator.messages(user.id).map((e) => e.messageId)).toEqual([
      invoice.message_id - 1,
      invoice.message_id,
    ]);
  });

  it("does not pay an invoice twice unless asked to (a second, different payment)", async () => {
    const { user, invoice } = await withInvoice();
    const first = await user.pay(invoice.message_id);
    if (first.kind !== "paid") throw new Error(`expected paid, got ${first.kind}`);
    const queries = seen.filter((u) => u.pre_checkout_query).length;

    expect(await user.pay(invoice.message_id)).toMatchObject({ kind: "unavailable" });
    expect(seen.filter((u) => u.pre_checkout_query)).toHaveLength(queries);

    const second = await user.pay(invoice.message_id, { again: true });
    if (second.kind !== "paid") throw new Error(`expected paid, got ${second.kind}`);
    expect(second.telegramChargeId).not.toBe(first.telegramChargeId);
    expect(second.providerChargeId).not.toBe(first.providerChargeId);
    await until(() => paymentsSeenBy(user.id).length === 2, 2000);
  });

  it("refuses a second answer to a query, unknown ids, and ok: false without a message", async () => {
    const { user, invoice } = await withInvoice();
    const refusedBefore = emulator.calls("answerPreCheckoutQuery").filter((c) => !c.response.ok);
    checkout = "twice";
    const result = await user.pay(invoice.message_id);
    expect(result.kind).toBe("paid");
    await until(() => secondAnswers.length > 0, 2000);
    const [second] = secondAnswers;
    expect(second).toMatchObject({
      error_code: 400,
      description: "Bad Request: QUERY_ID_INVALID",
    });
    const unknown = await apiError(bot.api.answerPreCheckoutQuery("12345", true));
    expect([unknown.error_code, unknown.description]).toEqual([
      400,
      "Bad Request: QUERY_ID_INVALID",
    ]);
    const noMessage = await apiError(bot.api.answerPreCheckoutQuery("12345", false));
    expect([noMessage.error_code, noMessage.description]).toEqual([
      400,
      'Bad Request: parameter "error_message" is required',
    ]);
    const refused = emulator.calls("answerPreCheckoutQuery").filter((c) => !c.response.ok);
    expect(refused.length - refusedBefore.length).toBe(3);
  });

  it("cannot pay a deleted invoice, and rejects a message that is no invoice", async () => {
    const { user, invoice } = await withInvoice();
    await bot.api.deleteMessage(user.id, invoice.message_id);
    expect(await user.pay(invoice.message_id)).toMatchObject({ kind: "unavailable" });
    const text = await bot.api.sendMessage(user.id, "not an invoice");
    await expect(user.pay(text.message_id)).rejects.toThrow(/is not an invoice/);
    await expect(user.pay(9999)).rejects.toThrow(/No message #9999/);
  });

  it("keeps the bot's own keyboard with Pay first, also through edits", async () => {
    const user = emulator.user({ id: ++nextUser, first_name: "Keys" });
    const keyboard = new InlineKeyboard().pay("Buy now").row().text("Details", "details");
    const invoice = await bot.api.sendInvoice(user.id, "Gold", "30 days", "p", "USD", PRICES, {
      provider_token: PROVIDER,
      reply_markup: keyboard,
    });
    expect(user.inlineButtons(invoice)).toEqual([["Buy now"], ["Details"]]);

    const bad = await apiError(
      bot.api.editMessageReplyMarkup(user.id, invoice.message_id, {
        reply_markup: new InlineKeyboard().text("Details", "details"),
      }),
    );
    expect(bad.description).toBe("Bad Request: REPLY_MARKUP_BUY_EMPTY");
    const copy = await apiError(bot.api.copyMessage(user.id, user.id, invoice.message_id));
    expect(copy.description).toBe("Bad Request: message can't be copied");
  });

  it("lets a paid invoice keep its Pay button alone (Telegram shows the receipt behind it)", async () => {
    const { user, invoice } = await withInvoice();
    expect((await user.pay(invoice.message_id)).kind).toBe("paid");
    // Its other buttons can go; the Pay button cannot (the first button stays Pay).
    const edited = await bot.api.editMessageReplyMarkup(user.id, invoice.message_id, {
      reply_markup: new InlineKeyboard().pay("🧾 Receipt"),
    });
    expect(user.inlineButtons(edited as Message)).toEqual([["🧾 Receipt"]]);
    // With no keyboard at all, Telegram draws its own Pay button, as for a new invoice.
    const bare = await bot.api.editMessageReplyMarkup(user.id, invoice.message_id);
    expect((bare as Message).reply_markup?.inline_keyboard.flat()).toEqual([
      expect.objectContaining({ pay: true }),
    ]);
    expect(await user.pay(invoice.message_id)).toMatchObject({ kind: "unavailable" });
  });
});

describe("payments with raw polling and a short pre-checkout timeout", () => {
  const token = "434343:raw-payments";
  let emulator: TelegramEmulator;
  let api: Api;

  beforeAll(async () => {
    emulator = await createTelegramEmulator({ bots: [{ token }], preCheckoutTimeoutMs: 300 });
    api = new Api(token, { apiRoot: emulator.apiRoot });
  });

  afterAll(async () => {
    await emulator.close();
  });

  /** Drains the queue; returns what was in it. */
  async function take(
    options: { allowed_updates?: readonly Exclude<keyof Update, "update_id">[] } = {},
  ): Promise<Update[]> {
    const updates = await api.getUpdates({ timeout: 0, ...options });
    const last = updates.at(-1);
    if (last) await api.getUpdates({ offset: last.update_id + 1, timeout: 0 });
    return updates;
  }

  async function invoiceFor(userId: number): Promise<Message> {
    return api.sendInvoice(userId, "Gold", "30 days", `order:${userId}`, "USD", PRICES, {
      provider_token: PROVIDER,
    });
  }

  it("times out without an answer, and refuses the answer that comes too late", async () => {
    const user = emulator.user({ id: 8001, first_name: "Slow" });
    const invoice = await invoiceFor(user.id);
    await take();

    const started = Date.now();
    const paying = user.pay(invoice.message_id);
    await sleep(50);
    const [query] = await take();
    const id = query?.pre_checkout_query?.id;
    if (!id) throw new Error("the bot got no pre_checkout_query");

    const result = await paying;
    expect(result.kind).toBe("timeout");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const late = await apiError(api.answerPreCheckoutQuery(id, true));
    expect([late.error_code, late.description]).toEqual([
      400,
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    ]);
    expect(emulator.preCheckoutAnswers()).toEqual([]);
    await sleep(50);
    expect(await take()).toEqual([]);
    expect(emulator.messages(user.id).some((e) => e.message.successful_payment)).toBe(false);
  });

  it("fails like a timeout when allowed_updates leaves pre_checkout_query out", async () => {
    const user = emulator.user({ id: 8002, first_name: "Filtered" });
    const invoice = await invoiceFor(user.id);
    await take({ allowed_updates: ["message", "callback_query"] });

    const result = await user.pay(invoice.message_id);
    expect(result.kind).toBe("timeout");
    expect(await take()).toEqual([]);

    // With pre_checkout_query allowed again, an answer in time pays.
    await take({ allowed_updates: [] });
    const paying = user.pay(invoice.message_id);
    await sleep(50);
    const [query] = await take();
    await api.answerPreCheckoutQuery(query?.pre_checkout_query?.id ?? "", true);
    const paid = await paying;
    expect(paid.kind).toBe("paid");
    expect((await take()).map((u) => u.message?.successful_payment?.invoice_payload)).toEqual([
      "order:8002",
    ]);
  });
});
