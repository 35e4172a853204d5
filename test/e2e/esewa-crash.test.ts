// A bot process paying with eSewa SIGKILLed after the status check said COMPLETE (the payment
// recorded) and before its top-up left: the next process tops up once and tells the buyer once.
// Real processes, the eSewa sandbox, the emulator and the ledger.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createEsewaSandbox,
  type EsewaSandbox,
  TEST_PRODUCT_CODE,
  TEST_SECRET_KEY,
} from "../../tools/esewa-sandbox/server.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { killedBeforeTheTopup } from "../support/crash.js";
import { PAID } from "../support/paying.js";
import { freePort } from "../support/ports.js";

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

    await killedBeforeTheTopup(stack, first, user, env, () => esewa.pay(uuid), "with eSewa");
  }, 60_000);
});
