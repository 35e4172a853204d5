// The provider balance end to end: admins record readings and deposits with /balance, a top-up
// charged in the ledger lowers the balance expected, bad input and strangers are answered and
// nothing is stored; BALANCE_ALERT_BELOW alerts the admins once, BALANCE_STOP_BELOW refuses a
// purchase the balance cannot pay before anything is charged.
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerTables } from "../../src/adapters/ledger/schema.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { insertRows, ledgerRow } from "../support/ledger-rows.js";
import { type Stack, startStack } from "../support/stack.js";

const ADMIN = 99_320;
/** Intl writes a no-break space between the currency and the amount. */
const spaced = (text: string | undefined) => (text ?? "").replace(/\u00a0/g, " ");

describe("/balance", () => {
  let stack: Stack;
  let admin: ChatUser;
  let ledger: Kysely<LedgerTables>;
  const entries = async () =>
    (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM provider_balance_entries`.execute(
        ledger,
      )
    ).rows[0]?.n;

  beforeAll(async () => {
    stack = await startStack("balance", { ADMIN_USER_IDS: String(ADMIN) });
    admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
    const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 2 });
    ledger = new Kysely<LedgerTables>({ dialect: new PostgresDialect({ pool }) });
  });
  afterAll(async () => {
    await ledger?.destroy();
    await stack?.stop();
  });

  it("answers bad input, and anyone but an admin, with one message and nothing stored", async () => {
    const stranger = stack.emulator.user({ id: 7_398, first_name: "Nosy", language_code: "en" });
    const cases: [ChatUser, string, string][] = [
      [admin, "/balance add -5", "Not recorded"],
      [admin, "/balance add 1.234", "Not recorded"],
      [admin, "/balance add lots", "Not recorded"],
      [admin, "/balance set x", "Not recorded"],
      [admin, "/balance take 5", "Use /balance"],
      [stranger, "/balance add 500", "Sorry, this command is for administrators only."],
      [stranger, "/balance", "Sorry, this command is for administrators only."],
    ];
    for (const [user, command, answer] of cases) {
      await expectReply(user, () => user.sendText(command), answer);
    }
    expect(await entries()).toBe(0);
  });

  it("records a reading and a deposit, and subtracts the top-ups charged since", async () => {
    // Each entry is answered twice (recorded, then the balance): wait for the second, so that a
    // late one is not taken for the answer to the next command.
    await expectReply(
      admin,
      () => admin.sendText("/balance set 1000.50"),
      /Expected balance at the provider: NPR\s1,000\.50/,
    );
    await expectReply(
      admin,
      () => admin.sendText("/balance add 500 bank transfer"),
      /Expected balance at the provider: NPR\s1,500\.50/,
    );
    const texts = admin.messages().map((m) => spaced(m.text));
    expect(texts).toContain("Reading of NPR 1,000.50 recorded.");
    expect(texts).toContain("Deposit of NPR 500.00 recorded.");
    await insertRows(ledger, [ledgerRow({ created_at: new Date(), phase: "charged" })]);
    const reply = await expectReply(admin, () => admin.sendText("/balance"), /Expected balance/);
    expect(spaced(reply.text)).toContain("Expected balance at the provider: NPR 800.50");
    // The time of the reading in the provider's zone, as every other time the bot shows.
    expect(spaced(reply.text)).toMatch(
      /Last reading: NPR 1,000\.50 \(\d+ \w+ \d{4}, \d\d:\d\d \(UTC\)\)/,
    );
    expect(spaced(reply.text)).toContain("deposits NPR 500.00, top-ups charged NPR 700.00");
    await expectReply(
      admin,
      () => admin.sendText("/report"),
      /Expected balance at the provider: NPR\s800\.50/,
    );
    const rows = await sql<{ kind: string; amount_minor: string; note: string; admin: string }>`
      SELECT kind, amount_minor::text, note, admin::text FROM provider_balance_entries ORDER BY id`.execute(
      ledger,
    );
    expect(rows.rows).toEqual([
      { kind: "reading", amount_minor: "100050", note: "", admin: String(ADMIN) },
      { kind: "deposit", amount_minor: "50000", note: "bank transfer", admin: String(ADMIN) },
    ]);
  });
  it("shows a balance below zero with the currency and separators, in English and Nepali", async () => {
    await insertRows(
      ledger,
      [1, 2, 3, 4, 5].map(() => ledgerRow({ created_at: new Date(), phase: "charged" })),
    );
    // 800.50 expected, less five more top-ups of 700: -2,699.50.
    const english = await expectReply(admin, () => admin.sendText("/balance"), /Expected/);
    expect(spaced(english.text)).toContain("Expected balance at the provider: -NPR 2,699.50");
    await expectReply(admin, () => admin.sendText("/language"), /./);
    await expectReply(admin, () => admin.press("नेपाली"), "नेपाली");
    const ne = await expectReply(admin, () => admin.sendText("/balance"), /अपेक्षित/);
    expect(spaced(ne.text)).toContain("प्रदायकमा अपेक्षित ब्यालेन्स: -नेरू २,६९९.५०");
    expect(spaced(ne.text)).toContain("चार्ज गरिएका टप-अप नेरू ४,२००.००");
    await expectReply(admin, () => admin.sendText("/language"), /./);
    await expectReply(admin, () => admin.press("English"), "English");
  });
});

describe("BALANCE_ALERT_BELOW", () => {
  let stack: Stack;
  let admin: ChatUser;
  const alerts = () =>
    admin.messages().filter((m) => m.text?.includes("Provider balance low")).length;
  const topUp = async (buyer: ChatUser, code: string) => {
    await expectReply(buyer, () => buyer.sendText(`/topup ${code}`), "Choose a package");
    await expectReply(buyer, () => buyer.press(/Renew/), "Please confirm");
    await expectReply(buyer, () => buyer.press(/Confirm/), "Top-up successful", 15_000);
  };

  beforeAll(async () => {
    stack = await startStack("balance-alert", {
      ADMIN_USER_IDS: String(ADMIN),
      BALANCE_ALERT_BELOW: "1000",
    });
    admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("alerts the admins once when a charged top-up takes the balance below, again after it rose", async () => {
    const buyer = stack.emulator.user({ id: 7_401, first_name: "Buyer", language_code: "en" });
    await expectReply(admin, () => admin.sendText("/balance set 1000.01"), "Expected balance");
    expect(alerts()).toBe(0);

    const alert = admin.waitForText("Provider balance low", { timeoutMs: 15_000 });
    await topUp(buyer, "1000001");
    expect(spaced((await alert).text)).toContain("below NPR 1,000.00");
    expect(alerts()).toBe(1);

    // Still below after a second charge: no second alert.
    await topUp(buyer, "1000003");
    await expectReply(admin, () => admin.sendText("/balance"), "Expected balance");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(alerts()).toBe(1);

    // A deposit takes it back above; a reading below alerts again.
    await expectReply(admin, () => admin.sendText("/balance add 100000"), "Expected balance");
    expect(alerts()).toBe(1);
    const again = admin.waitForText("Provider balance low", { timeoutMs: 5_000 });
    admin.sendText("/balance set 10");
    expect(spaced((await again).text)).toContain("expected at the provider is NPR 10.00");
    await expectReply(admin, () => admin.sendText("/balance"), "Expected balance");
    expect(alerts()).toBe(2);
  });
});

describe("BALANCE_STOP_BELOW", () => {
  let stack: Stack;
  let admin: ChatUser;
  const stops = () => admin.messages().filter((m) => m.text?.includes("Purchases stopped")).length;
  const tryTopUp = async (buyer: ChatUser, code: string, answer: string) => {
    await expectReply(buyer, () => buyer.sendText(`/topup ${code}`), "Choose a package");
    await expectReply(buyer, () => buyer.press(/Renew/), "Please confirm");
    await expectReply(buyer, () => buyer.press(/Confirm/), answer, 15_000);
  };

  beforeAll(async () => {
    stack = await startStack("balance-stop", {
      ADMIN_USER_IDS: String(ADMIN),
      BALANCE_STOP_BELOW: "0",
    });
    admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("refuses a purchase the balance cannot pay before anything is charged, alerting once", async () => {
    const buyer = stack.emulator.user({ id: 7_402, first_name: "Buyer", language_code: "en" });
    await expectReply(admin, () => admin.sendText("/balance set 1"), "Expected balance");
    const alert = admin.waitForText("Purchases stopped", { timeoutMs: 10_000 });
    await tryTopUp(buyer, "1000001", "cannot be bought right now");
    expect(spaced((await alert).text)).toContain("would fall below NPR 0.00");
    await tryTopUp(buyer, "1000001", "cannot be bought right now");
    expect(stack.sandbox.topups).toHaveLength(0);
    expect(stops()).toBe(1);

    await expectReply(admin, () => admin.sendText("/balance add 100000"), "Expected balance");
    await tryTopUp(buyer, "1000001", "Top-up successful");
    expect(stack.sandbox.topups).toHaveLength(1);
    expect(stops()).toBe(1);
  });
});
