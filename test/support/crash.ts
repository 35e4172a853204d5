// A bot killed between a payment and its top-up, whatever system took the payment: the payment
// recorded, the bot SIGKILLed while it asks the provider for the fresh listing that comes before
// the top-up; then a new process tops up once and tells the buyer once.
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import type { BotProcess, ProcessStack } from "./bot-process.js";
import { purchasesOf, toldPurchasesOf } from "./ledger-rows.js";
import { until } from "./wait.js";

/**
 * `pay` pays `user`'s open purchase while `first` runs; `first` is killed once the bot asks for
 * the listing after it, and a bot started with `env` must top it up once, its receipt naming
 * `paidWith`, and tell it once.
 */
export async function killedBeforeTheTopup(
  stack: ProcessStack,
  first: BotProcess,
  user: ChatUser,
  env: Record<string, string>,
  pay: () => unknown,
  paidWith: string,
): Promise<void> {
  const { sandbox } = stack;
  // After the payment the bot asks for a fresh listing first: held there, it is killed.
  sandbox.setFault("get-subscription-package", { kind: "latency", ms: 60_000 });
  const listings = sandbox.requests.length;
  await pay();
  await until(() => sandbox.requests.length > listings, 10_000);
  first.child.kill("SIGKILL");
  await first.exited;
  expect(sandbox.topups).toHaveLength(0);
  expect(await purchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([{ phase: "paid" }]);
  sandbox.clearFaults();

  const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
  const second = stack.startBot(env);
  expect((await receipt).text).toContain(paidWith);
  await sleep(2_500); // more checks and reconciliation passes: nothing is topped up or told again
  expect(sandbox.topups).toHaveLength(1);
  expect(user.messages().filter((m) => m.text?.includes("Top-up successful"))).toHaveLength(1);
  expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
    { phase: "charged", told: "charged" },
  ]);
  second.child.kill("SIGTERM");
  await second.exited;
}
