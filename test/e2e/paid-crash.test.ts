// A bot process SIGKILLed after the payment was recorded and before its top-up left: the next
// process (after the dead one's lease lapses) tops up once, at the price paid, and tells the
// buyer once. Real processes, the emulator taking the payment, a PostgreSQL ledger.
import { setTimeout as sleep } from "node:timers/promises";
import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { until } from "../support/wait.js";

const PAID = {
  PAYMENT_MODE: "telegram",
  PAYMENT_PROVIDER_TOKEN: "284685063:TEST:crash",
  CURRENCY: "NPR",
  TOPUP_LOCK_SECONDS: "2",
  RECONCILE_INTERVAL_SECONDS: "1",
  LOG_LEVEL: "info",
};

let stack: ProcessStack;
beforeAll(async () => {
  stack = await startProcessStack("paid_crash");
}, 30_000);
afterAll(() => stack.stop());

describe("a bot killed between the payment and the top-up", () => {
  it("tops up once after the restart and sends one receipt", async () => {
    const { sandbox, emulator } = stack;
    const first = stack.startBot(PAID);
    const user = emulator.user({ id: 6400, first_name: "Cr", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 15_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    const invoice = user.waitForMessage((message: Message) => message.invoice !== undefined);
    user.press(/Pay NPR/);
    const { message_id } = await invoice;
    // After the payment the bot asks for a fresh listing first: held there, it is killed.
    sandbox.setFault("get-subscription-package", { kind: "latency", ms: 60_000 });
    const listings = sandbox.requests.length;
    expect((await user.pay(message_id)).kind).toBe("paid");
    await until(() => sandbox.requests.length > listings, 10_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(sandbox.topups).toHaveLength(0);
    expect(await purchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([{ phase: "paid" }]);
    sandbox.clearFaults();

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    const second = stack.startBot(PAID);
    expect((await receipt).text).toContain("Paid:");
    await sleep(2_500); // two more reconciliation passes: nothing is topped up or told again
    expect(sandbox.topups).toHaveLength(1);
    expect(user.messages().filter((m) => m.text?.includes("Top-up successful"))).toHaveLength(1);
    expect(await purchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    second.child.kill("SIGTERM");
    await second.exited;
  }, 60_000);
});
