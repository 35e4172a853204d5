// A refusal is not an outage. A payment that cannot be recorded as it came (a Khalti lookup
// answering total_amount 0; a confirmation the database refuses) is set aside once for a person:
// one row, one alert, the buyer told that staff check it (never "Payment received"), the return
// page saying the same, nothing journaled, nothing written again on repeats; /refunds lists it
// and /refunded closes it. A payment journal line edited, garbled, forged or written before
// lines had a MAC is quarantined and never topped up; a valid line beside them still is.
import { createHmac } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import type { ReceivedPayment } from "../../src/domain/payment.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { type KhaltiGateways, startKhaltiGateways } from "../support/khalti-gateways.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { confirmationOf, logged, PAID, withInvoice } from "../support/paying.js";
import { BOT_TOKEN } from "../support/stack.js";
import { until } from "../support/wait.js";

const ADMIN = 6690;

const textsOf = (user: { messages(): { text?: string }[] }) =>
  user.messages().map((message) => message.text ?? "");

async function query<T>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

const anomaliesOf = (databaseUrl: string) =>
  query<{
    method: string;
    charge_id: string;
    amount: string;
    reason: string;
    closed_by: string | null;
  }>(
    databaseUrl,
    "SELECT method, charge_id, amount, reason, closed_by FROM payment_anomalies ORDER BY id",
  );

describe("a Khalti lookup answering total_amount 0", () => {
  let world: KhaltiGateways;
  beforeAll(async () => {
    world = await startKhaltiGateways("anomaly_khalti", "anomaly-e2e-secret", {
      ADMIN_USER_IDS: String(ADMIN),
      // The return page may ask Khalti again soon (a payment set aside, asked again below).
      RETURN_PAGE_LOOKUP_MS: "300",
    });
  }, 30_000);
  afterAll(() => world.stop());

  it("is set aside once: one alert, the buyer and the page say staff check it, no journal, no loop", async () => {
    const { stack, khalti, khaltiGateway, base } = world;
    const databaseUrl = stack.env.DATABASE_URL ?? "";
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const { user, pidx } = await world.withLink(6601);
    // Khalti says Completed, for nothing.
    let lookups = 0;
    khaltiGateway.handle = async (request, forward) => {
      const answer = await forward();
      if (request.path !== "/api/v2/epayment/lookup/") return answer;
      lookups++;
      const body = JSON.parse(answer.text) as Record<string, unknown>;
      return { ...answer, text: JSON.stringify({ ...body, total_amount: 0 }) };
    };
    // "I have paid", as the buyer will press it later (its buttons go once the offer ends).
    const link = user
      .messages()
      .findLast((message) =>
        message.reply_markup?.inline_keyboard.flat().some((b) => b.text === "✅ I have paid"),
      );
    const check = link?.reply_markup?.inline_keyboard
      .flat()
      .find((button) => button.text === "✅ I have paid");
    const told = user.waitForText("Our staff are checking it", { timeoutMs: 10_000 });
    khalti.pay(pidx);
    await told;

    expect(await anomaliesOf(databaseUrl)).toMatchObject([
      { method: "khalti", charge_id: pidx, amount: "0", reason: "the amount is not positive" },
    ]);
    const alerts = () => textsOf(admin).filter((text) => text.includes("A payment was set aside"));
    await until(() => alerts().length > 0, 5_000);
    expect(alerts()[0]).toContain(pidx);

    // The return page, however often it is opened, tells the truth.
    const page = await (await fetch(`${base}/pay/khalti/return?pidx=${pidx}`)).text();
    expect(page).toContain("our staff are checking it");
    expect(page).not.toMatch(/nothing was charged|payment received/i);
    // "I have paid" says the same.
    const answer = user.waitForCallbackAnswer();
    user.pressData(
      check && "callback_data" in check ? check.callback_data : "",
      link?.message_id ?? 0,
    );
    expect((await answer).text).toContain("our staff are checking it");

    // Asked again (a lookup of the offer, as the page or a sweep would): nothing is written or
    // said again, and nothing grows.
    const [purchase] = await purchasesOf(databaseUrl, user.chatId);
    const events = async () =>
      (
        await query<{ n: string }>(
          databaseUrl,
          "SELECT count(*)::text AS n FROM purchase_events WHERE purchase_id = $1",
          [purchase?.id],
        )
      )[0]?.n;
    const eventsThen = await events();
    const asked = lookups;
    const second = await world.withLink(6602);
    // The other buyer's link is looked up every second meanwhile: a clock for this test.
    await until(() => lookups >= asked + 3, 10_000);
    await fetch(`${base}/pay/khalti/return?pidx=${pidx}&again=1`);
    expect(await anomaliesOf(databaseUrl)).toHaveLength(1);
    expect(await events()).toBe(eventsThen);
    expect(alerts()).toHaveLength(1);
    expect(textsOf(user).filter((text) => text.includes("Our staff are checking it"))).toHaveLength(
      1,
    );
    expect(textsOf(user).filter((text) => /Payment received|Top-up successful/.test(text))).toEqual(
      [],
    );
    expect(
      stack.logs().filter((line) => line.includes("payment set aside for a person")),
    ).toHaveLength(1);
    expect(existsSync(join(stack.env.DATA_DIR ?? "", "payments.journal"))).toBe(false);
    expect(stack.sandbox.topups).toHaveLength(0);
    expect(purchase?.phase).toBe("unpaid");
    khaltiGateway.handle = (_, forward) => forward();
    khalti.cancel(second.pidx);

    // Khalti now answers the amount asked (its glitch gone): the payment set aside stays a
    // person's. Asked again, by the page as by a sweep, the reconciliation's settling or a
    // journal's replay (each records through the ledger, which refuses a payment set aside):
    // nothing recorded, topped up or refunded, and the page still says staff check it.
    const noPayment = async () =>
      expect(
        await query(databaseUrl, "SELECT id FROM payments WHERE charge_id = $1", [pidx]),
      ).toEqual([]);
    const askAgain = async (tag: string) => {
      await new Promise((resolve) => setTimeout(resolve, 400)); // past RETURN_PAGE_LOOKUP_MS
      const before = khalti.calls.lookups(pidx);
      const page = await (await fetch(`${base}/pay/khalti/return?pidx=${pidx}&${tag}`)).text();
      expect(khalti.calls.lookups(pidx)).toBeGreaterThan(before);
      expect(page).toContain("our staff are checking it");
      await noPayment();
      expect(stack.sandbox.topups).toHaveLength(0);
    };
    const saidBefore = textsOf(user).length;
    await askAgain("fixed=1");

    // Listed for a person under its own heading, and closed by /refunded with its charge id.
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "set aside");
    expect(listed.text).toContain(pidx);
    expect(listed.text).toContain("the amount is not positive");
    await expectReply(
      admin,
      () => admin.sendText(`/refunded ${pidx} checked with Khalti`),
      "Closed",
    );
    expect((await anomaliesOf(databaseUrl))[0]?.closed_by).toBe(`telegram:${ADMIN}`);
    await expectReply(admin, () => admin.sendText("/refunds"), "No refunds are due");
    // Closed by the person: still theirs, never settled by the bot afterwards.
    await askAgain("closed=1");
    // And the buyer was told nothing more (no "paid late", no receipt, no refund).
    expect(textsOf(user).slice(saidBefore)).toEqual([]);
  }, 60_000);
});

describe("a confirmation the database refuses", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("anomaly_refused");
  }, 30_000);
  afterAll(() => stack.stop());

  it("is set aside once, however often it is delivered: never journaled, never retried", async () => {
    const bot = stack.startBot({ ...PAID, ADMIN_USER_IDS: String(ADMIN) });
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const { user, invoice } = await withInvoice(stack, 6610);
    const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
    // A currency no ledger row may hold (the database's check refuses it).
    const confirmation = confirmationOf(user, invoice, purchase?.id ?? "", {
      updateId: 780_001,
      id: "tg-charge-refused",
      providerId: "prov-refused",
    });
    const paid = confirmation.message?.successful_payment;
    if (paid) paid.currency = "npr";
    const told = user.waitForText("Our staff are checking it", { timeoutMs: 10_000 });
    stack.emulator.injectUpdate(BOT_TOKEN, confirmation);
    await told;
    // Delivered again, under another update id too: the same payment, set aside before.
    stack.emulator.injectUpdate(BOT_TOKEN, confirmation);
    stack.emulator.injectUpdate(BOT_TOKEN, { ...confirmation, update_id: 780_002 });
    const setAside = "payment set aside for a person: it cannot be recorded as it came";
    // Acknowledged (it is kept, as an anomaly): the next getUpdates asks past the last one.
    await until(
      () =>
        stack.emulator.calls("getUpdates").some((call) => Number(call.payload.offset) > 780_002),
      10_000,
    );
    expect(logged(bot, setAside)).toHaveLength(1);
    expect(logged(bot, setAside)[0]?.reason).toMatch(/^SQLSTATE 23514/);
    expect(await anomaliesOf(stack.databaseUrl)).toMatchObject([
      { method: "telegram", charge_id: "tg-charge-refused", amount: "70000" },
    ]);
    const alerts = textsOf(admin).filter((text) => text.includes("A payment was set aside"));
    expect(alerts).toHaveLength(1);
    expect(textsOf(user).filter((text) => text.includes("Our staff are checking it"))).toHaveLength(
      1,
    );
    expect(textsOf(user).filter((text) => /Payment received|being processed/.test(text))).toEqual(
      [],
    );
    expect(logged(bot, "payment kept in the journal until the ledger is back")).toEqual([]);
    expect(existsSync(join(stack.dataDir, "payments.journal"))).toBe(false);
    expect(await query(stack.databaseUrl, "SELECT id FROM payments")).toEqual([]);
    // The invoice is withdrawn: nothing waits for a payment, nothing says "not paid" later.
    expect(await purchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "unpaid", told: "unpaid" },
    ]);
    expect(stack.sandbox.topups).toHaveLength(0);
  }, 45_000);
});

describe("payment journal lines that cannot be believed", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("journal_quarantine");
  }, 30_000);
  afterAll(() => stack.stop());

  it("edited, garbled, forged or without a MAC: quarantined and alerted, none topped up; a valid line still is", async () => {
    const first = stack.startBot({ ...PAID, PAYMENT_WINDOW_SECONDS: "3600" });
    const buyers = [6620, 6621, 6622, 6623, 6624];
    const invoices = [];
    for (const id of buyers) invoices.push(await withInvoice(stack, id));
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    // The key the bot derives from its token (no PAYMENT_JOURNAL_KEY), computed here.
    const key = loadConfig({
      BOT_TOKEN,
      PROVIDER_BASE_URL: "https://provider.example",
      PROVIDER_TOKEN: "journal-test-provider-token",
      PAYMENT_MODE: "none",
      TOPUP_USER_IDS: "*",
    }).paymentJournal.key;
    const sealed = (payment: ReceivedPayment, with_ = key) =>
      JSON.stringify({
        ...payment,
        mac: createHmac("sha256", with_)
          .update("topup-bot payments.journal v1\n")
          .update(JSON.stringify(payment))
          .digest("base64url"),
      });
    const payments: ReceivedPayment[] = [];
    for (const [index, { user, invoice }] of invoices.entries()) {
      const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
      const paid = confirmationOf(user, invoice, purchase?.id ?? "", {
        updateId: 781_000 + index,
        id: `tg-charge-journal-${index}`,
        providerId: `prov-journal-${index}`,
      }).message?.successful_payment;
      payments.push({
        method: "telegram",
        purchaseId: purchase?.id ?? "",
        currency: paid?.currency ?? "",
        minor: paid?.total_amount ?? 0,
        charge: { id: paid?.telegram_payment_charge_id ?? "", providerId: null, at: Date.now() },
      });
    }
    const [valid, toEdit, toGarble, toForge, beforeMacs] = payments as [
      ReceivedPayment,
      ReceivedPayment,
      ReceivedPayment,
      ReceivedPayment,
      ReceivedPayment,
    ];
    const doubtful = [
      // Edited by hand: another charge id under the MAC of the first.
      sealed(toEdit).replace(toEdit.charge.id, "tg-charge-edited"),
      `${sealed(toGarble).slice(0, 60)}#`,
      sealed(toForge, new Uint8Array(Buffer.from("a key that is not the bot's key!!"))),
      JSON.stringify(beforeMacs),
    ];
    const journal = join(stack.dataDir, "payments.journal");
    writeFileSync(journal, `${[doubtful[0], sealed(valid), ...doubtful.slice(1)].join("\n")}\n`);

    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const buyer = invoices[0]?.user;
    const receipt = buyer?.waitForText("Top-up successful", { timeoutMs: 20_000 });
    const second = stack.startBot({ ...PAID, ADMIN_USER_IDS: String(ADMIN) });
    expect((await receipt)?.text).toContain("Paid:");
    await until(() => logged(second, "payments written after all").length > 0, 10_000);

    expect(existsSync(journal)).toBe(false);
    const quarantine = readFileSync(join(stack.dataDir, "payments.journal.quarantine"), "utf8");
    expect(quarantine).toBe(`${doubtful.join("\n")}\n`);
    expect(
      logged(second, "a payment journal line moved to the quarantine").map((line) => line.why),
    ).toEqual(["MAC fails", "unreadable", "MAC fails", "no MAC"]);
    const alerts = () => textsOf(admin).filter((text) => text.includes("could not be believed"));
    await until(() => alerts().length > 0, 5_000);
    expect(alerts()[0]).toContain("4 payment journal line");
    // None believed: one top-up (the valid line's), the others still wait for their payment.
    expect(stack.sandbox.topups).toHaveLength(1);
    for (const { user } of invoices.slice(1)) {
      expect(await purchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
        { phase: "awaiting-payment" },
      ]);
    }
    expect(await query(stack.databaseUrl, "SELECT charge_id FROM payments")).toEqual([
      { charge_id: valid.charge.id },
    ]);
    expect(alerts()).toHaveLength(1);
  }, 90_000);
});
