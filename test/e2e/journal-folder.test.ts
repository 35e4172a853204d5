// The payment journal's folder is one process's (PAYMENT_JOURNAL_DIR: two replicas on one
// volume, or a second bot started by mistake): a second process refuses to start, naming the
// holder; a holder that died is taken over by one newcomer, never two, which replays the
// journal once; a stop leaves the folder free. Real bot processes.
import { createHmac } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import type { ReceivedPayment } from "../../src/domain/payment.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { purchasesOf } from "../support/ledger-rows.js";
import { confirmationOf, logged, PAID, withInvoice } from "../support/paying.js";
import { BOT_TOKEN } from "../support/stack.js";
import { until } from "../support/wait.js";

describe("two bot processes on one payment journal folder", () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack("journal_folder");
  }, 30_000);
  afterAll(() => stack.stop());

  it("one holds it; a second refuses to start; two started at once on a dead holder's: one takes it and replays once", async () => {
    const folder = join(stack.dataDir, "journal");
    const env = { ...PAID, PAYMENT_JOURNAL_DIR: folder, PAYMENT_WINDOW_SECONDS: "3600" };
    const lock = join(folder, "payments.journal.lock");
    const holderPid = () => readFileSync(lock, "utf8").split("@")[0];

    const first = stack.startBot(env);
    const { user, invoice } = await withInvoice(stack, 6560);
    expect(holderPid()).toBe(String(first.child.pid));

    // A second bot on the same folder (its own DATA_DIR, the same PAYMENT_JOURNAL_DIR).
    const second = stack.startBot(env);
    expect(await second.exited).toBe(1);
    const refusal = JSON.stringify(logged(second, "could not start"));
    expect(refusal).toContain(`is in use by another bot process (pid ${first.child.pid})`);
    expect(first.child.exitCode).toBeNull();
    expect(holderPid()).toBe(String(first.child.pid));

    // The holder dies (its lock is left behind) with a payment in its journal.
    first.child.kill("SIGKILL");
    await first.exited;
    const key = loadConfig({
      BOT_TOKEN,
      PROVIDER_BASE_URL: "https://provider.example",
      PROVIDER_TOKEN: "journal-folder-provider-token",
      PAYMENT_MODE: "none",
      TOPUP_USER_IDS: "*",
    }).paymentJournal.key;
    const [purchase] = await purchasesOf(stack.databaseUrl, user.chatId);
    const paid = confirmationOf(user, invoice, purchase?.id ?? "", {
      updateId: 790_001,
      id: "tg-charge-folder",
      providerId: "prov-folder",
    }).message?.successful_payment;
    const payment: ReceivedPayment = {
      method: "telegram",
      purchaseId: purchase?.id ?? "",
      currency: paid?.currency ?? "",
      minor: paid?.total_amount ?? 0,
      charge: { id: "tg-charge-folder", providerId: "prov-folder", at: Date.now() },
    };
    const mac = createHmac("sha256", key)
      .update("topup-bot payments.journal v1\n")
      .update(JSON.stringify(payment))
      .digest("base64url");
    writeFileSync(join(folder, "payments.journal"), `${JSON.stringify({ ...payment, mac })}\n`);

    // Two bots started at the same moment on it: one takes it over, the other refuses.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 20_000 });
    const both = [stack.startBot(env), stack.startBot(env)];
    const loser = await Promise.race(both.map((bot) => bot.exited.then(() => bot)));
    const winner = both.find((bot) => bot !== loser);
    if (!winner || !loser) throw new Error("unreachable");
    expect(await loser.exited).toBe(1);
    expect(JSON.stringify(logged(loser, "could not start"))).toContain(
      `is in use by another bot process (pid ${winner.child.pid})`,
    );
    await receipt;
    await until(() => logged(winner, "payments written after all").length > 0, 10_000);
    expect(logged(loser, "payments written after all")).toEqual([]);
    expect(stack.sandbox.topups).toHaveLength(1);
    expect(holderPid()).toBe(String(winner.child.pid));

    // A stop leaves the folder for the next process.
    winner.child.kill("SIGTERM");
    expect(await winner.exited).toBe(0);
    expect(existsSync(lock)).toBe(false);
  }, 90_000);
});
