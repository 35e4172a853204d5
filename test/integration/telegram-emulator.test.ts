import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Api, Bot, InlineKeyboard, InputFile, Keyboard } from "grammy";
import type { Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createTelegramEmulator,
  type EmulatorEvent,
  type TelegramEmulator,
  type WebhookTiming,
} from "../../tools/telegram-emulator/index.js";
import { apiError } from "../support/api-error.js";
import { until } from "../support/wait.js";

const TOKEN = "123456:TEST-secret_token";
const BOT_ID = 123456;
const NOT_MODIFIED =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

describe("Telegram emulator with a real grammY bot", () => {
  let emulator: TelegramEmulator;
  let bot: Bot;
  let polling: Promise<void>;
  const seenUpdates: Update[] = [];
  const events: EmulatorEvent[] = [];

  beforeAll(async () => {
    emulator = await createTelegramEmulator();
    emulator.onEvent((event) => events.push(event));
    bot = new Bot(TOKEN, { client: { apiRoot: emulator.apiRoot } });
    bot.use((ctx, next) => {
      seenUpdates.push(ctx.update);
      return next();
    });
    const menu = new InlineKeyboard()
      .text("Yes", "yes")
      .text("No", "no")
      .row()
      .url("Docs", "https://example.com/docs");
    bot.command("start", (ctx) => ctx.reply("Welcome!"));
    bot.command("menu", (ctx) => ctx.reply("Continue?", { reply_markup: menu }));
    bot.callbackQuery("yes", async (ctx) => {
      await ctx.answerCallbackQuery({ text: "Confirmed" });
      await ctx.editMessageText("<b>You said yes</b>", { parse_mode: "HTML" });
    });
    bot.callbackQuery("no", (ctx) => ctx.answerCallbackQuery());
    bot.command("phone", (ctx) =>
      ctx.reply("Share your phone", {
        reply_markup: new Keyboard().requestContact("Share phone").resized().oneTime(),
      }),
    );
    bot.on("message:contact", (ctx) =>
      ctx.reply(`Thanks, ${ctx.message.contact.phone_number}`, {
        reply_markup: { remove_keyboard: true },
      }),
    );
    bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    await new Promise<void>((resolve) => {
      polling = bot.start({ timeout: 1, onStart: () => resolve() });
    });
  });

  afterAll(async () => {
    await bot.stop();
    await polling;
    await emulator.close();
  });

  it("answers getMe for any well-formed token, 401 otherwise, 404 for unknown methods", async () => {
    const me = await bot.api.getMe();
    expect(me).toMatchObject({ id: BOT_ID, is_bot: true, username: "test_123456_bot" });
    expect(me.first_name).toBe("Test Bot");

    const badToken = await apiError(new Api("not-a-token", { apiRoot: emulator.apiRoot }).getMe());
    expect([badToken.error_code, badToken.description]).toEqual([401, "Unauthorized"]);

    const response = await fetch(`${emulator.apiRoot}/bot${TOKEN}/frobnicate`, { method: "POST" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ ok: false, error_code: 404, description: "Not Found" });
  });

  it("delivers a user's text through long polling and shows the reply", async () => {
    const ana = emulator.user({ id: 1001, first_name: "Ana", language_code: "en" });
    const sent = ana.sendText("hello");
    const reply = await ana.waitForText("echo: hello");

    expect(reply.chat).toEqual({ id: 1001, type: "private", first_name: "Ana" });
    expect(reply.from).toMatchObject({ id: BOT_ID, is_bot: true });
    expect(reply.message_id).toBe(sent.message_id + 1);
    expect(ana.lastMessage()?.text).toBe("echo: hello");
  });

  it("gives commands bot_command entities, including /cmd@botname in groups", async () => {
    const group = emulator.group({ id: -100_500, title: "Support", type: "supergroup" });
    const ben = group.member({ id: 1002, first_name: "Ben" });
    const sent = ben.sendText("/start@test_123456_bot");
    expect(sent.entities).toEqual([{ type: "bot_command", offset: 0, length: 22 }]);

    const reply = await ben.waitForText("Welcome!");
    expect(reply.chat).toEqual({ id: -100_500, type: "supergroup", title: "Support" });
    expect(group.messages().map((m) => m.text)).toEqual(["Welcome!"]);
  });

  it("forwards a message with its entities and its origin, and sends an inline bot's text", async () => {
    const author = emulator.user({ id: 1003, first_name: "Author" });
    const written = author.sendText("/start now");
    await author.waitForText("Welcome!");
    const forwarder = emulator.user({ id: 1004, first_name: "Forwarder" });
    const forwarded = forwarder.forward(written);
    expect(forwarded.text).toBe("/start now");
    expect(forwarded.entities).toEqual(written.entities);
    expect(forwarded.from?.id).toBe(1004);
    expect(forwarded.forward_origin).toEqual({
      type: "user",
      sender_user: written.from,
      date: written.date,
    });
    // A forward of a forward keeps the first origin; the bot gets the message as it is.
    const again = emulator.user({ id: 1005, first_name: "Again" }).forward(forwarded);
    expect(again.forward_origin).toEqual(forwarded.forward_origin);
    await until(
      () => seenUpdates.some((u) => u.message?.chat.id === 1004 && u.message.forward_origin),
      3_000,
    );
    const inline = { id: 1006, is_bot: true, first_name: "Inline", username: "inline_bot" };
    const viaBot = forwarder.sendText("/start from a bot", { viaBot: inline });
    expect(viaBot.via_bot).toEqual(inline);
    expect(viaBot.entities).toEqual([{ type: "bot_command", offset: 0, length: 6 }]);
  });

  it("round-trips a button press: callback answer, then the message edited in place", async () => {
    const cleo = emulator.user({ id: 1003, first_name: "Cleo" });
    cleo.sendText("/menu");
    const menu = await cleo.waitForText("Continue?");
    expect(cleo.inlineButtons()).toEqual([["Yes", "No"], ["Docs"]]);

    const edited = cleo.waitForText("You said yes");
    const query = cleo.press("Yes");
    expect(query.data).toBe("yes");
    const answer = await cleo.waitForCallbackAnswer();
    expect(answer).toMatchObject({
      callbackQueryId: query.id,
      text: "Confirmed",
      showAlert: false,
    });

    const message = await edited;
    expect(message.message_id).toBe(menu.message_id);
    expect(message.entities).toEqual([{ type: "bold", offset: 0, length: 12 }]);
    expect(message.edit_date).toBeTypeOf("number");
    expect(message.reply_markup).toBeUndefined(); // an edit without reply_markup drops it
    const stored = emulator.messages(1003).find((m) => m.messageId === menu.message_id);
    expect(stored?.versions.map((v) => v.text)).toEqual(["Continue?", "You said yes"]);
    expect(events).toContainEqual(expect.objectContaining({ type: "edit", chatId: 1003 }));

    expect(() => cleo.press("Maybe")).toThrow(/No inline button Maybe.*Available: none/);
    expect(() => cleo.press("Docs", { messageId: menu.message_id })).toThrow(/No inline button/);
  });

  it("lists the available buttons when the label is not there, and refuses URL buttons", async () => {
    const dan = emulator.user({ id: 1004, first_name: "Dan" });
    dan.sendText("/menu");
    await dan.waitForText("Continue?");
    expect(() => dan.press("Maybe")).toThrow(/Available: #\d+ \[Yes\] \[No\] \/ \[Docs\]/);
    expect(() => dan.press("Docs")).toThrow(/has no callback_data/);
  });

  it("delivers two presses made in the same tick in one getUpdates batch", async () => {
    const eve = emulator.user({ id: 1005, first_name: "Eve" });
    eve.sendText("/menu");
    await eve.waitForText("Continue?");
    const first = eve.press("No");
    const second = eve.press("No");
    await eve.waitForCallbackAnswer();
    await eve.waitForCallbackAnswer();

    const batch = emulator
      .calls("getUpdates")
      .map((call) => (call.response.ok ? (call.response.result as Update[]) : []))
      .find((updates) => updates.some((u) => u.callback_query?.id === first.id));
    expect(batch?.map((u) => u.callback_query?.id)).toEqual([first.id, second.id]);
  });

  it("rejects a second answer to the same callback query, and unknown ids", async () => {
    const fay = emulator.user({ id: 1006, first_name: "Fay" });
    fay.sendText("/menu");
    await fay.waitForText("Continue?");
    const query = fay.press("No");
    await fay.waitForCallbackAnswer();

    const again = await apiError(bot.api.answerCallbackQuery(query.id));
    expect(again.description).toBe(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
    const unknown = await apiError(bot.api.answerCallbackQuery("42"));
    expect(unknown.error_code).toBe(400);
  });

  it('answers "message is not modified" for an identical edit', async () => {
    const gus = emulator.user({ id: 1007, first_name: "Gus" });
    const keyboard = new InlineKeyboard().text("A", "a");
    const sent = await bot.api.sendMessage(gus.id, "Same", { reply_markup: keyboard });

    const sameText = await apiError(
      bot.api.editMessageText(gus.id, sent.message_id, "Same", { reply_markup: keyboard }),
    );
    expect(sameText.description).toBe(NOT_MODIFIED);
    const sameMarkup = await apiError(
      bot.api.editMessageReplyMarkup(gus.id, sent.message_id, { reply_markup: keyboard }),
    );
    expect(sameMarkup.description).toBe(NOT_MODIFIED);

    // Dropping the keyboard is a change.
    const edited = await bot.api.editMessageText(gus.id, sent.message_id, "Same");
    expect(edited).not.toHaveProperty("reply_markup");

    const missing = await apiError(bot.api.editMessageText(gus.id, 9999, "x"));
    expect(missing.description).toBe("Bad Request: message to edit not found");
    const own = gus.sendText("mine");
    const foreign = await apiError(bot.api.editMessageText(gus.id, own.message_id, "x"));
    expect(foreign.description).toBe("Bad Request: message can't be edited");
  });

  it("parses HTML like Telegram: errors for a stray tag, entities in UTF-16 units", async () => {
    const hal = emulator.user({ id: 1008, first_name: "Hal" });
    const unescaped = await apiError(
      bot.api.sendMessage(hal.id, "O'Brien <Ltd> & Sons", { parse_mode: "HTML" }),
    );
    expect(unescaped.error_code).toBe(400);
    expect(unescaped.description).toBe(
      `Bad Request: can't parse entities: Unsupported start tag "ltd" at byte offset 8`,
    );

    const escaped = await bot.api.sendMessage(hal.id, "<b>O'Brien &lt;Ltd&gt; &amp; Sons</b>", {
      parse_mode: "HTML",
    });
    expect(escaped.text).toBe("O'Brien <Ltd> & Sons");
    expect(escaped.entities).toEqual([{ type: "bold", offset: 0, length: 20 }]);

    const rich = await bot.api.sendMessage(
      hal.id,
      '<b>👋 Привет</b>, <i>Ana</i> &#x1F600;\n<a href="example.com">site</a> ' +
        '<pre><code class="language-ts">let x</code></pre> <tg-spoiler>s</tg-spoiler>',
      { parse_mode: "HTML" },
    );
    expect(rich.text).toBe("👋 Привет, Ana 😀\nsite let x s");
    expect(rich.entities).toEqual([
      { type: "bold", offset: 0, length: 9 },
      { type: "italic", offset: 11, length: 3 },
      { type: "text_link", offset: 18, length: 4, url: "http://example.com/" },
      { type: "pre", offset: 23, length: 5, language: "ts" },
      { type: "spoiler", offset: 29, length: 1 },
    ]);

    const unbalanced = await apiError(
      bot.api.sendMessage(hal.id, "<b>bold<i>x</b></i>", { parse_mode: "HTML" }),
    );
    expect(unbalanced.description).toBe(
      `Bad Request: can't parse entities: Unmatched end tag at byte offset 11, expected "</i>", found "</b>"`,
    );
    const unclosed = await apiError(bot.api.sendMessage(hal.id, "<b>bold", { parse_mode: "HTML" }));
    expect(unclosed.description).toBe(
      `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    );
  });

  it("parses MarkdownV2 and rejects unescaped reserved characters", async () => {
    const ida = emulator.user({ id: 1009, first_name: "Ida" });
    const reserved = await apiError(
      bot.api.sendMessage(ida.id, "Total: 5.00", { parse_mode: "MarkdownV2" }),
    );
    expect(reserved.description).toBe(
      "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    );
    const ok = await bot.api.sendMessage(ida.id, "*Total* `5\\.00` [pay](https://pay.example)\\!", {
      parse_mode: "MarkdownV2",
    });
    expect(ok.text).toBe("Total 5.00 pay!");
    expect(ok.entities).toEqual([
      { type: "bold", offset: 0, length: 5 },
      { type: "code", offset: 6, length: 4 },
      { type: "text_link", offset: 11, length: 3, url: "https://pay.example/" },
    ]);
  });

  it("enforces callback_data of 1..64 bytes (not characters)", async () => {
    const jon = emulator.user({ id: 1010, first_name: "Jon" });
    const fits = "é".repeat(32); // 64 bytes
    await bot.api.sendMessage(jon.id, "ok", {
      reply_markup: new InlineKeyboard().text("x", fits),
    });
    const tooLong = await apiError(
      bot.api.sendMessage(jon.id, "too long", {
        reply_markup: new InlineKeyboard().text("x", `${fits}a`),
      }),
    );
    expect(tooLong.description).toBe("Bad Request: BUTTON_DATA_INVALID");
  });

  it("limits text to 4096 characters after entity parsing", async () => {
    const kim = emulator.user({ id: 1011, first_name: "Kim" });
    const full = await bot.api.sendMessage(kim.id, `<b>${"a".repeat(4096)}</b>`, {
      parse_mode: "HTML",
    });
    expect(full.text).toHaveLength(4096);
    const over = await apiError(bot.api.sendMessage(kim.id, "a".repeat(4097)));
    expect(over.description).toBe("Bad Request: message is too long");
    const blank = await apiError(bot.api.sendMessage(kim.id, "  \n "));
    expect(blank.description).toBe("Bad Request: message text is empty");
  });

  it("answers 403 for a user who blocked the bot and tells the bot via my_chat_member", async () => {
    const lea = emulator.user({ id: 1012, first_name: "Lea" });
    lea.block();
    const blocked = await apiError(bot.api.sendMessage(lea.id, "are you there?"));
    expect([blocked.error_code, blocked.description]).toEqual([
      403,
      "Forbidden: bot was blocked by the user",
    ]);
    await expect.poll(() => seenUpdates.some((u) => u.my_chat_member?.chat.id === 1012)).toBe(true);
    const update = seenUpdates.find((u) => u.my_chat_member?.chat.id === 1012);
    expect(update?.my_chat_member?.new_chat_member.status).toBe("kicked");

    lea.unblock();
    await expect(bot.api.sendMessage(lea.id, "welcome back")).resolves.toMatchObject({
      text: "welcome back",
    });
  });

  it("applies the flood limit with retry_after", async () => {
    const max = emulator.user({ id: 1013, first_name: "Max" });
    emulator.setFloodLimit({ perSecond: 3 });
    try {
      for (const n of [1, 2, 3]) await bot.api.sendMessage(max.id, `burst ${n}`);
      const limited = await apiError(bot.api.sendMessage(max.id, "burst 4"));
      expect(limited.error_code).toBe(429);
      expect(limited.description).toMatch(/^Too Many Requests: retry after [1-9]\d*$/);
      expect(limited.parameters.retry_after).toBeGreaterThanOrEqual(1);
    } finally {
      emulator.setFloodLimit(undefined);
    }
    expect(max.messages().map((m) => m.text)).toEqual(["burst 1", "burst 2", "burst 3"]);
  });

  it("fails the next calls of a method on request (failNext)", async () => {
    const ned = emulator.user({ id: 1014, first_name: "Ned" });
    emulator.failNext("sendMessage", { error_code: 502, description: "Bad Gateway" });
    emulator.failNext(
      "sendMessage",
      {
        error_code: 429,
        description: "Too Many Requests: retry after 7",
        parameters: { retry_after: 7 },
      },
      1,
    );
    const gateway = await apiError(bot.api.sendMessage(ned.id, "one"));
    expect([gateway.error_code, gateway.description]).toEqual([502, "Bad Gateway"]);
    const flood = await apiError(bot.api.sendMessage(ned.id, "two"));
    expect(flood.parameters.retry_after).toBe(7);
    await bot.api.sendMessage(ned.id, "three");
    expect(ned.messages().map((m) => m.text)).toEqual(["three"]);
    expect(() => emulator.failNext("sendMesage", { error_code: 500, description: "x" })).toThrow(
      /not a method/,
    );
  });

  it("delivers an injected duplicate update again (deduplication is the bot's job)", async () => {
    const ola = emulator.user({ id: 1015, first_name: "Ola" });
    ola.sendText("ping");
    await ola.waitForText("echo: ping");
    const original = seenUpdates.find((u) => u.message?.chat.id === 1015);
    if (!original) throw new Error("the bot never saw the update");

    const echoedAgain = ola.waitForText("echo: ping");
    emulator.injectUpdate(TOKEN, original);
    await echoedAgain;
    const deliveries = seenUpdates.filter((u) => u.update_id === original.update_id);
    expect(deliveries).toHaveLength(2);
  });

  it("answers 400 chat not found for chats the emulator does not know", async () => {
    const error = await apiError(bot.api.sendMessage(424_242, "hi"));
    expect([error.error_code, error.description]).toEqual([400, "Bad Request: chat not found"]);
  });

  it("shows reply keyboards and shares the contact from a request_contact button", async () => {
    const pia = emulator.user({ id: 1016, first_name: "Pia", phone_number: "9800000001" });
    pia.sendText("/phone");
    await pia.waitForText("Share your phone");
    expect(pia.replyKeyboard()).toMatchObject({
      keyboard: [[{ text: "Share phone", request_contact: true }]],
      resize_keyboard: true,
      one_time_keyboard: true,
    });

    const thanks = pia.waitForText("Thanks, 9800000001");
    const shared = pia.tapReplyButton("Share phone");
    expect(shared.contact).toEqual({
      phone_number: "9800000001",
      first_name: "Pia",
      user_id: 1016,
    });
    await thanks;
    expect(pia.replyKeyboard()).toBeNull();
  });

  it("draws a private chat's own menu button over the bot's default, until it is set to default again", async () => {
    const ray = emulator.user({ id: 1030, first_name: "Ray" });
    const zoe = emulator.user({ id: 1031, first_name: "Zoe" });
    ray.sendText("/start");
    await ray.waitForText("Welcome!");
    const shop = (text: string) => ({
      type: "web_app" as const,
      text,
      web_app: { url: "https://example.com/app/" },
    });
    await bot.api.setChatMenuButton({ menu_button: shop("Shop") });
    await bot.api.setChatMenuButton({ chat_id: ray.id, menu_button: shop("पसल") });
    expect(ray.menuButton()).toEqual(shop("पसल"));
    expect(zoe.menuButton()).toEqual(shop("Shop"));
    await bot.api.setChatMenuButton({ chat_id: ray.id, menu_button: { type: "default" } });
    expect(ray.menuButton()).toEqual(shop("Shop"));
    const unknown = await apiError(
      bot.api.setChatMenuButton({ chat_id: 424_242, menu_button: shop("x") }),
    );
    expect(unknown.description).toBe("Bad Request: chat not found");
  });

  it("stores photos sent by URL and uploaded as multipart, with parsed captions", async () => {
    const quinn = emulator.user({ id: 1017, first_name: "Quinn" });
    const byUrl = await bot.api.sendPhoto(quinn.id, "https://example.com/cat.jpg", {
      caption: "<i>cat</i>",
      parse_mode: "HTML",
    });
    const fileId = byUrl.photo?.[0]?.file_id ?? "";
    expect(emulator.file(fileId)?.url).toBe("https://example.com/cat.jpg");
    expect(byUrl.caption_entities).toEqual([{ type: "italic", offset: 0, length: 3 }]);

    const uploaded = await bot.api.sendPhoto(
      quinn.id,
      new InputFile(Buffer.from("PNG bytes"), "dog.png"),
      {
        caption: "dog",
      },
    );
    const upload = emulator.file(uploaded.photo?.[0]?.file_id ?? "")?.upload;
    expect(upload?.filename).toBe("dog.png");
    expect(upload?.bytes.toString()).toBe("PNG bytes");

    const resent = await bot.api.sendPhoto(quinn.id, fileId);
    expect(resent.photo?.[0]?.file_id).toBe(fileId);
    const tooLong = await apiError(
      bot.api.sendPhoto(quinn.id, fileId, { caption: "c".repeat(1025) }),
    );
    expect(tooLong.description).toBe("Bad Request: message caption is too long");
  });

  it("deletes messages once and keeps them marked as deleted", async () => {
    const rex = emulator.user({ id: 1018, first_name: "Rex" });
    const sent = await bot.api.sendMessage(rex.id, "temporary");
    await bot.api.deleteMessage(rex.id, sent.message_id);
    const again = await apiError(bot.api.deleteMessage(rex.id, sent.message_id));
    expect(again.description).toBe("Bad Request: message to delete not found");
    expect(rex.messages()).toEqual([]);
    expect(emulator.messages(rex.id).map((m) => [m.messageId, m.deleted])).toEqual([
      [sent.message_id, true],
    ]);
    expect(events).toContainEqual({
      type: "delete",
      botId: BOT_ID,
      chatId: rex.id,
      messageId: sent.message_id,
    });
  });

  it("resolves the command menu per scope and language like a client", async () => {
    const sam = emulator.user({ id: 1019, first_name: "Sam", language_code: "ne" });
    const tia = emulator.user({ id: 1020, first_name: "Tia", language_code: "en" });
    await bot.api.setMyCommands([{ command: "start", description: "Start" }]);
    await bot.api.setMyCommands([{ command: "start", description: "सुरु" }], {
      language_code: "ne",
    });
    expect(sam.commands()).toEqual([{ command: "start", description: "सुरु" }]);
    expect(tia.commands()).toEqual([{ command: "start", description: "Start" }]);
    const invalid = await apiError(
      bot.api.setMyCommands([{ command: "Bad-Cmd", description: "x" }]),
    );
    expect(invalid.description).toBe("Bad Request: BOT_COMMAND_INVALID");
    // A chat's own menu needs a chat Telegram knows: not yet for a user it has never seen.
    const early = await apiError(
      bot.api.setMyCommands([{ command: "report", description: "Report" }], {
        scope: { type: "chat", chat_id: 1_021 },
      }),
    );
    expect(early.description).toBe("Bad Request: chat not found");
    const uma = emulator.user({ id: 1_021, first_name: "Uma", language_code: "en" });
    await bot.api.setMyCommands([{ command: "report", description: "Report" }], {
      scope: { type: "chat", chat_id: uma.id },
    });
    expect(uma.commands()).toEqual([{ command: "report", description: "Report" }]);
    expect(tia.commands()).toEqual([{ command: "start", description: "Start" }]);
  });

  it("tells the bot when it is removed from a group and refuses to post there", async () => {
    const group = emulator.group({ id: -100_600, title: "Sales" });
    const owner = group.member({ id: 1022, first_name: "Vic" }, { status: "creator" });
    group.removeBot(owner);
    const kicked = await apiError(bot.api.sendMessage(group.id, "hello?"));
    expect(kicked.description).toBe("Forbidden: bot was kicked from the supergroup chat");
    await expect
      .poll(() => seenUpdates.find((u) => u.my_chat_member?.chat.id === group.id))
      .toMatchObject({
        my_chat_member: { from: { id: 1022 }, new_chat_member: { status: "kicked" } },
      });

    group.addBot(owner);
    await expect(bot.api.getChatMember(group.id, owner.id)).resolves.toMatchObject({
      status: "creator",
    });
    await bot.api.sendMessage(group.id, "back");
    expect(group.messages().map((m) => m.text)).toEqual(["back"]);
  });

  it("replies to, copies and re-captions messages", async () => {
    const wes = emulator.user({ id: 1023, first_name: "Wes" });
    const question = wes.sendText("what is my balance?");
    const answer = await bot.api.sendMessage(wes.id, "Rs 500", {
      reply_parameters: { message_id: question.message_id },
    });
    expect(answer.reply_to_message?.text).toBe("what is my balance?");
    const missing = await apiError(
      bot.api.sendMessage(wes.id, "x", { reply_parameters: { message_id: 9999 } }),
    );
    expect(missing.description).toBe("Bad Request: message to be replied not found");

    const photo = await bot.api.sendPhoto(wes.id, "https://example.com/receipt.png", {
      caption: "Receipt",
    });
    const copy = await bot.api.copyMessage(wes.id, wes.id, photo.message_id, { caption: "Copy" });
    expect(wes.messages().find((m) => m.message_id === copy.message_id)?.caption).toBe("Copy");
    const edited = await bot.api.editMessageCaption(wes.id, photo.message_id, {
      caption: "<b>Paid</b>",
      parse_mode: "HTML",
    });
    expect(edited).toMatchObject({
      caption: "Paid",
      caption_entities: [{ type: "bold", offset: 0, length: 4 }],
    });
  });

  it("lets the bot message many users who never wrote (broadcast)", async () => {
    const users = Array.from({ length: 150 }, (_, i) =>
      emulator.user({ id: 50_000 + i, first_name: `User ${i}` }),
    );
    await Promise.all(users.map((user) => bot.api.sendMessage(user.id, "Service notice")));
    expect(users.every((user) => user.lastMessage()?.text === "Service notice")).toBe(true);
  });

  it("rejects a wait that times out with the last messages of the chat", async () => {
    const uma = emulator.user({ id: 1021, first_name: "Uma" });
    await bot.api.sendMessage(uma.id, "Only this");
    await expect(uma.waitForText("never", { timeoutMs: 30 })).rejects.toThrow(
      /Timed out after 30 ms waiting for a bot message with text "never" in chat 1021\. Last messages:\n {2}#1 bot: "Only this"/,
    );
  });
});

describe("getUpdates", () => {
  let emulator: TelegramEmulator;
  const token = "777:raw-polling";
  let api: Api;

  beforeAll(async () => {
    emulator = await createTelegramEmulator({ bots: [{ token }] });
    api = new Api(token, { apiRoot: emulator.apiRoot });
  });

  afterAll(async () => {
    await emulator.close();
  });

  it("keeps updates until a higher offset confirms them", async () => {
    const user = emulator.user({ id: 2001, first_name: "Val" });
    user.sendText("one");
    user.sendText("two");
    const first = await api.getUpdates();
    expect(first.map((u) => u.message?.text)).toEqual(["one", "two"]);
    expect(first[1]?.update_id).toBe((first[0]?.update_id ?? 0) + 1);

    const unconfirmed = await api.getUpdates();
    expect(unconfirmed.map((u) => u.update_id)).toEqual(first.map((u) => u.update_id));
    const last = first.at(-1)?.update_id ?? 0;
    expect(await api.getUpdates({ offset: last + 1 })).toEqual([]);
  });

  it("holds a long poll until an update arrives", async () => {
    const user = emulator.user({ id: 2002, first_name: "Wes" });
    const started = Date.now();
    const poll = api.getUpdates({ timeout: 5 });
    setTimeout(() => user.sendText("late"), 50);
    const updates = await poll;
    expect(updates.map((u) => u.message?.text)).toEqual(["late"]);
    expect(Date.now() - started).toBeLessThan(2000);
    await api.getUpdates({ offset: (updates[0]?.update_id ?? 0) + 1 });
  });

  it("answers the older of two concurrent long polls with 409 Conflict", async () => {
    const user = emulator.user({ id: 2004, first_name: "Yan" });
    const polls = Promise.allSettled([
      api.getUpdates({ timeout: 5 }),
      api.getUpdates({ timeout: 5 }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    user.sendText("for the newer poll");
    // Either request may have reached the emulator first.
    const [older, newer] = await polls.then((results) =>
      results[0]?.status === "rejected" ? results : [...results].reverse(),
    );
    expect(older?.status === "rejected" && older.reason).toMatchObject({ error_code: 409 });
    expect(newer?.status === "fulfilled" && newer.value.map((u) => u.message?.text)).toEqual([
      "for the newer poll",
    ]);
    const updates = newer?.status === "fulfilled" ? newer.value : [];
    await api.getUpdates({ offset: (updates.at(-1)?.update_id ?? 0) + 1 });
  });

  it("honours allowed_updates", async () => {
    const user = emulator.user({ id: 2003, first_name: "Xia" });
    await api.getUpdates({ allowed_updates: ["callback_query"] });
    user.sendText("filtered");
    expect(await api.getUpdates()).toEqual([]);
    await api.getUpdates({ allowed_updates: [] });
  });
});

interface WebhookRequest {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  body: Update;
  /** Answers the POST; for a held one, whenever the test wants. */
  answer(status: number): void;
  /** Resolves when the connection goes before an answer (the emulator aborted). */
  aborted: Promise<void>;
}

/** A node:http webhook receiver; `respond` gives each POST's status, or "hold" to leave it unanswered. */
async function webhookReceiver(respond: (nth: number) => number | "hold" = () => 200) {
  const requests: WebhookRequest[] = [];
  const server = createServer((request, response) => {
    const aborted = new Promise<void>((resolve) =>
      response.on("close", () => {
        if (!response.writableFinished) resolve();
      }),
    );
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const received: WebhookRequest = {
        method: request.method,
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString()) as Update,
        answer: (status) => response.writeHead(status).end(),
        aborted,
      };
      requests.push(received);
      const status = respond(requests.length);
      if (status !== "hold") received.answer(status);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/telegram`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("webhook mode", () => {
  const token = "778:webhook-mode";
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(
    respond?: (nth: number) => number | "hold",
    webhook: WebhookTiming = { timeoutMs: 200, retryDelayMs: 20, maxAttempts: 3 },
  ) {
    const receiver = await webhookReceiver(respond);
    const emulator = await createTelegramEmulator({ bots: [{ token }], webhook });
    cleanups.push(receiver.close, () => emulator.close());
    return { receiver, emulator, api: new Api(token, { apiRoot: emulator.apiRoot }) };
  }

  it("posts a user's message as JSON with the secret header", async () => {
    const { receiver, emulator, api } = await setUp();
    expect(await api.setWebhook(receiver.url, { secret_token: "Sec_ret-1" })).toBe(true);
    const sent = emulator.user({ id: 3001, first_name: "Ada" }).sendText("hello hook");
    await until(
      () => emulator.webhookInfo().pending_update_count === 0 && receiver.requests.length === 1,
      2_000,
    );

    const [request] = receiver.requests;
    expect(request?.method).toBe("POST");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-telegram-bot-api-secret-token"]).toBe("Sec_ret-1");
    expect(request?.body).toEqual({ update_id: expect.any(Number), message: sent });
    expect(emulator.webhookDeliveries()).toMatchObject([
      { updateId: request?.body.update_id, attempt: 1, status: 200 },
    ]);
    expect(await api.getWebhookInfo()).toEqual({
      url: receiver.url,
      has_custom_certificate: false,
      pending_update_count: 0,
      max_connections: 40,
    });
  });

  it("sends no secret header without a secret_token", async () => {
    const { receiver, emulator, api } = await setUp();
    await api.setWebhook(receiver.url);
    emulator.user({ id: 3002, first_name: "Bo" }).sendText("no secret");
    await until(() => receiver.requests.length === 1, 2_000);
    expect(receiver.requests[0]?.headers).not.toHaveProperty("x-telegram-bot-api-secret-token");
  });

  it("refuses getUpdates while a webhook is set, ends a waiting one, and polls again after deleteWebhook", async () => {
    const { receiver, emulator, api } = await setUp();
    const waiting = apiError(api.getUpdates({ timeout: 5 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await api.setWebhook(receiver.url);
    expect(await waiting).toMatchObject({
      error_code: 409,
      description: "Conflict: terminated by setWebhook request",
    });

    const refused = await apiError(api.getUpdates());
    expect(refused.error_code).toBe(409);
    expect(refused.description).toBe(
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );

    expect(await api.deleteWebhook()).toBe(true);
    expect((await api.getWebhookInfo()).url).toBe("");
    emulator.user({ id: 3003, first_name: "Cy" }).sendText("polled");
    expect((await api.getUpdates({ timeout: 1 })).map((u) => u.message?.text)).toEqual(["polled"]);
    expect(receiver.requests).toEqual([]);
  });

  it("retries an update answered 500 with the same update_id and reports the last error", async () => {
    const { receiver, emulator, api } = await setUp((nth) => (nth === 1 ? 500 : 200));
    await api.setWebhook(receiver.url);
    const before = Math.floor(Date.now() / 1000);
    emulator.user({ id: 3004, first_name: "Di" }).sendText("retry me");
    await until(() => emulator.webhookDeliveries().length === 2, 2_000);

    const [first, second] = emulator.webhookDeliveries();
    expect(first).toMatchObject({
      attempt: 1,
      status: 500,
      error: "Wrong response from the webhook: 500 Internal Server Error",
    });
    expect(second).toMatchObject({ updateId: first?.updateId, attempt: 2, status: 200 });
    expect(second).not.toHaveProperty("error");
    expect(receiver.requests.map((r) => r.body.update_id)).toEqual([
      first?.updateId,
      first?.updateId,
    ]);
    const info = await api.getWebhookInfo();
    expect(info).toMatchObject({
      pending_update_count: 0,
      last_error_message: "Wrong response from the webhook: 500 Internal Server Error",
    });
    expect(info.last_error_date).toBeGreaterThanOrEqual(before);
  });

  it("times out a receiver that never answers, retries, then drops the update", async () => {
    const { receiver, emulator } = await setUp(() => "hold", {
      timeoutMs: 200,
      retryDelayMs: 10,
      maxAttempts: 2,
    });
    await new Api(token, { apiRoot: emulator.apiRoot }).setWebhook(receiver.url);
    emulator.user({ id: 3005, first_name: "Ed" }).sendText("anyone?");
    await until(() => emulator.webhookDeliveries().length === 2, 2_000);

    const deliveries = emulator.webhookDeliveries();
    expect(deliveries.map((d) => [d.attempt, d.status, d.error])).toEqual([
      [1, undefined, "Read timeout expired"],
      [2, undefined, "Read timeout expired"],
    ]);
    expect(deliveries[1]?.updateId).toBe(deliveries[0]?.updateId);
    expect(
      (deliveries[1]?.time.getTime() ?? 0) - (deliveries[0]?.time.getTime() ?? 0),
    ).toBeGreaterThanOrEqual(200);
    await Promise.all(receiver.requests.map((r) => r.aborted));
    expect(emulator.webhookInfo()).toMatchObject({
      pending_update_count: 0,
      last_error_message: "Read timeout expired",
    });
  });

  it("records a refused connection as a failed attempt", async () => {
    const { emulator, api } = await setUp();
    const closed = await webhookReceiver();
    await closed.close();
    await api.setWebhook(closed.url);
    emulator.user({ id: 3006, first_name: "Fay" }).sendText("nobody home");
    await until(() => emulator.webhookDeliveries().length === 3, 2_000);
    expect(emulator.webhookDeliveries().map((d) => [d.attempt, d.status, d.error])).toEqual([
      [1, undefined, "Connection refused"],
      [2, undefined, "Connection refused"],
      [3, undefined, "Connection refused"],
    ]);
    expect(emulator.webhookInfo().pending_update_count).toBe(0);
  });

  it("refuses a bad secret_token or URL with 400 and clamps max_connections", async () => {
    const { receiver, emulator, api } = await setUp();
    expect(await apiError(api.setWebhook(receiver.url, { secret_token: "a b" }))).toMatchObject({
      error_code: 400,
      description: "Bad Request: secret token contains unallowed characters",
    });
    expect(
      await apiError(api.setWebhook(receiver.url, { secret_token: "x".repeat(257) })),
    ).toMatchObject({ error_code: 400, description: "Bad Request: secret token is too long" });
    expect(await apiError(api.setWebhook("not a url"))).toMatchObject({
      error_code: 400,
      description: "Bad Request: invalid webhook URL specified",
    });
    expect(emulator.webhookInfo().url).toBe("");

    await api.setWebhook(receiver.url, { secret_token: "x".repeat(256), max_connections: 500 });
    expect(emulator.webhookInfo().max_connections).toBe(100);
    await api.setWebhook(receiver.url, { max_connections: 0 });
    expect(emulator.webhookInfo().max_connections).toBe(1);
  });

  it("counts pending updates until the webhook confirms them; drop_pending_updates drops them", async () => {
    const { receiver, emulator, api } = await setUp(() => "hold");
    const gil = emulator.user({ id: 3007, first_name: "Gil" });
    const hal = emulator.user({ id: 3008, first_name: "Hal" });
    gil.sendText("one");
    hal.sendText("two");
    await until(() => emulator.webhookInfo().pending_update_count === 2, 2_000);

    await api.setWebhook(receiver.url, { max_connections: 1 });
    await until(() => receiver.requests.length === 1, 2_000);
    expect((await api.getWebhookInfo()).pending_update_count).toBe(2);
    receiver.requests[0]?.answer(200);
    await until(() => receiver.requests.length === 2, 2_000);
    expect((await api.getWebhookInfo()).pending_update_count).toBe(1);
    expect(receiver.requests.map((r) => r.body.message?.text)).toEqual(["one", "two"]);

    gil.sendText("three");
    await until(() => emulator.webhookInfo().pending_update_count === 2, 2_000);
    await api.deleteWebhook({ drop_pending_updates: true });
    expect(await api.getWebhookInfo()).toEqual({
      url: "",
      has_custom_certificate: false,
      pending_update_count: 0,
    });
  });

  it("delivers every injected copy of an update_id", async () => {
    const { receiver, emulator, api } = await setUp();
    await api.setWebhook(receiver.url);
    const message = emulator.user({ id: 3009, first_name: "Ivo" }).sendText("twice");
    await until(() => receiver.requests.length === 1, 2_000);
    const original = receiver.requests[0]?.body;
    if (!original) throw new Error("the webhook got nothing");

    expect(emulator.injectUpdate(token, original)).toEqual(original);
    expect(emulator.injectUpdate(token, original)).toEqual(original);
    await until(() => receiver.requests.length === 3, 2_000);
    expect(receiver.requests.map((r) => r.body)).toEqual([original, original, original]);
    expect(original.message).toEqual(message);
  });

  it("stops delivering and aborts a POST in flight on close()", async () => {
    const { receiver, emulator, api } = await setUp(() => "hold", {});
    await api.setWebhook(receiver.url);
    emulator.user({ id: 3010, first_name: "Jo" }).sendText("in flight");
    await until(() => receiver.requests.length === 1, 2_000);

    const started = Date.now();
    await emulator.close();
    await receiver.requests[0]?.aborted;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(emulator.webhookDeliveries()).toEqual([]);
  });
});
