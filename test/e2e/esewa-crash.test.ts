// A bot process paying with eSewa SIGKILLed after the status check said COMPLETE (the payment
// recorded) and before its top-up left: the next process tops up once and tells the buyer once.
// Real processes, the eSewa sandbox, the emulator and the ledger.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createEsewaSandbox,
  type EsewaSandbox,
  TEST_PRODUCT_CODE,
  TEST_SECRET_KEY,
} from "../../tools/esewa-sandbox/server.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { purchasesOf, toldPurchasesOf } from "../support/ledger-rows.js";
import { PAID } from "../support/paying.js";
import { freePort } from "../support/ports.js";
import { until } from "../support/wait.js";

describe("a bot paying with eSewa killed between the status check and the top-up", () => {
  let stack: ProcessStack;
  let esewa: EsewaSandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = await startProcessStack("esewa_crash");
    esewa = await createEsewaSandbox();
    const port = await freePort();
    env = {
      TOPUP_LOCK_SECONDS: PAID.TOPUP_LOCK_SECONDS,
      RECONCILE_INTERVAL_SECONDS: PAID.RECONCILE_INTERVAL_SECONDS,
      PAYMENT_MODE: "esewa",
      CURRENCY: PAID.CURRENCY,
      ESEWA_PRODUCT_CODE: TEST_PRODUCT_CODE,
      ESEWA_SECRET_KEY: TEST_SECRET_KEY,
      ESEWA_FORM_URL: esewa.formUrl,
      ESEWA_STATUS_URL: esewa.statusUrl,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      HTTP_PORT: String(port),
      HTTP_HOST: "127.0.0.1",
      PAYMENT_CHECK_SECONDS: "1",
    };
  }, 30_000);
  afterAll(async () => {
    await stack.stop();
    await esewa.close();
  });

  it("tops up once after the restart and sends one receipt", async () => {
    const { sandbox } = stack;
    const first = stack.startBot(env);
    const user = stack.emulator.user({ id: 6500, first_name: "Cr", language_code: "en" });
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 15_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    const link = await expectReply(user, () => user.press(/Pay NPR/), "with eSewa");
    const button = link.reply_markup?.inline_keyboard.flat().find((b) => "url" in b);
    const payUrl = button && "url" in button ? (button.url ?? "") : "";
    const page = await (await fetch(payUrl)).text();
    const fields = [...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
      ([, name = "", value = ""]) => [name, value.replaceAll("&amp;", "&")] as [string, string],
    );
    const form = await fetch(esewa.formUrl, {
      method: "POST",
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
    expect(form.status).toBe(302);
    const uuid = payUrl.split("/").at(-1) ?? "";

    // After the payment the bot asks for a fresh listing first: held there, it is killed.
    sandbox.setFault("get-subscription-package", { kind: "latency", ms: 60_000 });
    const listings = sandbox.requests.length;
    esewa.pay(uuid);
    await until(() => sandbox.requests.length > listings, 10_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(sandbox.topups).toHaveLength(0);
    expect(await purchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([{ phase: "paid" }]);
    sandbox.clearFaults();

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    const second = stack.startBot(env);
    expect((await receipt).text).toContain("with eSewa");
    await sleep(2_500); // more checks and reconciliation passes: nothing is topped up or told again
    expect(sandbox.topups).toHaveLength(1);
    expect(user.messages().filter((m) => m.text?.includes("Top-up successful"))).toHaveLength(1);
    expect(await toldPurchasesOf(stack.databaseUrl, user.chatId)).toMatchObject([
      { phase: "charged", told: "charged" },
    ]);
    second.child.kill("SIGTERM");
    await second.exited;
  }, 60_000);
});
