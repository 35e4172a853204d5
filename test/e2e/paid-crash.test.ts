// Paying when processes and the ledger fail. A bot process SIGKILLed after the payment was
// recorded and before its top-up left: the next process (after the dead one's lease lapses)
// tops up once, at the price paid, and tells the buyer once. The ledger's PostgreSQL killed
// around a payment: the payment is refused while it cannot be checked, and a confirmation that
// arrives while it is down is kept in the journal and written when it is back, then topped up. Real processes,
// the emulator taking the payment, PostgreSQL servers of the test's own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { killedBeforeTheTopup } from "../support/crash.js";
import { toldPurchasesOf } from "../support/ledger-rows.js";
import { confirmationOf, logged, PAID, withInvoice } from "../support/paying.js";
import { type OwnPostgres, startOwnPostgres } from "../support/postgres-server.js";
import { BOT_TOKEN } from "../support/stack.js";
import { until } from "../support/wait.js";

describe("a bot killed between the payment and the top-up", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("paid_crash");
  }, 30_000);
  afterAll(() => stack.stop());

  it("tops up once after the restart and sends one receipt", async () => {
    const first = stack.startBot(PAID);
    const { user, invoice } = await withInvoice(stack, 6400);
    const { message_id } = invoice;
    await killedBeforeTheTopup(
      stack,
      first,
      user,
      PAID,
      async () => expect((await user.pay(message_id)).kind).toBe("paid"),
      "Paid:",
    );
  }, 60_000);
});

describe("the ledger's PostgreSQL down around a payment", () => {
  let postgres: OwnPostgres;
  let stack: ProcessStack;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await startProcessStack("paid_pg_down", { postgresUrl: postgres.url });
  }, 40_000);
  afterAll(async () => {
    await stack.stop();
    await postgres.stop();
  });

  it("refuses to take a payment it cannot check, and keeps a confirmation until it is written", async () => {
    const { sandbox } = stack;
    const bot = stack.startBot({ ...PAID, DATABASE_STATEMENT_TIMEOUT_MS: "1000" });
    const { user, invoice } = await withInvoice(stack, 6410);
    await postgres.kill();
    // The last check before the money is taken cannot read the ledger: not paid.
    const refused = await user.pay(invoice.message_id);
    expect(refused.kind).toBe("refused");
    if (refused.kind === "refused") expect(refused.errorMessage).toContain("temporarily");

    // A confirmation Telegram delivers while the ledger is down (its check passed just before).
    // The refusal's log line may reach this process's pipe after the emulator has the answer.
    await until(() => logged(bot, "payment refused").length > 0, 5_000);
    const purchaseId = logged(bot, "payment refused")[0]?.purchaseId as string | undefined;
    expect(purchaseId).toBeTruthy();
    const confirmation = confirmationOf(user, invoice, purchaseId ?? "", {
      updateId: 777_001,
      id: "tg-charge-while-down",
      providerId: "prov-while-down",
    });
    stack.emulator.injectUpdate(BOT_TOKEN, confirmation);
    await until(
      () => logged(bot, "payment kept in the journal until the ledger is back").length > 0,
      10_000,
    );
    expect(sandbox.topups).toHaveLength(0);

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    await postgres.start();
    expect((await receipt).text).toContain("prov-while-down");
    expect(logged(bot, "payments written after all")).toHaveLength(1);
    expect(sandbox.topups).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
  }, 60_000);
});
