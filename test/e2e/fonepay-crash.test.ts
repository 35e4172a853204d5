// Real bot processes paying with Fonepay QR: one SIGKILLed after the status call said success
// (the payment recorded) and before its top-up left, and two replicas side by side. The next
// process tops up once; the replicas hold one socket for the offer and top up once.
// Real processes, the Fonepay sandbox, the emulator and the ledger.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFonepaySandbox, type FonepaySandbox } from "../../tools/fonepay-sandbox/server.js";
import { type ProcessStack, startProcessStack } from "../support/bot-process.js";
import { expectReply } from "../support/chat.js";
import { killedBeforeTheTopup } from "../support/crash.js";
import { PAID } from "../support/paying.js";
import { until } from "../support/wait.js";

const MERCHANT = {
  merchantCode: "crashshop01",
  username: "crash-fonepay-user",
  password: "crash-fonepay-pass-3",
  secretKey: "crash-fonepay-secret-key",
};

describe("bot processes paying with Fonepay QR", () => {
  let stack: ProcessStack;
  let fonepay: FonepaySandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = await startProcessStack("fonepay_crash");
    fonepay = await createFonepaySandbox(MERCHANT);
    env = {
      TOPUP_LOCK_SECONDS: PAID.TOPUP_LOCK_SECONDS,
      RECONCILE_INTERVAL_SECONDS: PAID.RECONCILE_INTERVAL_SECONDS,
      PAYMENT_MODE: "",
      PAYMENT_METHODS: "fonepay",
      CURRENCY: PAID.CURRENCY,
      FONEPAY_MERCHANT_CODE: MERCHANT.merchantCode,
      FONEPAY_USERNAME: MERCHANT.username,
      FONEPAY_PASSWORD: MERCHANT.password,
      FONEPAY_SECRET_KEY: MERCHANT.secretKey,
      FONEPAY_API_URL: fonepay.apiUrl,
      PAYMENT_CHECK_SECONDS: "1",
    };
  }, 30_000);
  afterAll(async () => {
    await stack.stop();
    await fonepay.close();
  });

  /** A buyer shown a QR; its prn: the sandbox's one new QR. */
  async function qrFor(id: number) {
    const user = stack.emulator.user({ id, first_name: "Cr", language_code: "en" });
    const before = new Set(fonepay.payments().map((payment) => payment.prn));
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package", 15_000);
    await expectReply(user, () => user.press(/Renew/), "Please confirm");
    await expectReply(user, () => user.press(/Pay NPR/), "Scan this QR", 10_000);
    const prn = fonepay.payments().find((payment) => !before.has(payment.prn))?.prn ?? "";
    return { user, prn };
  }

  it("killed between the status call and the top-up: one top-up after the restart, one receipt", async () => {
    const first = stack.startBot(env);
    const { user, prn } = await qrFor(6900);
    await killedBeforeTheTopup(stack, first, user, env, () => fonepay.pay(prn), "with Fonepay QR");
  }, 60_000);

  it("an open QR after a restart: watched again by the status call, paid, topped up once", async () => {
    const { sandbox } = stack;
    const topupsBefore = sandbox.topups.length;
    const first = stack.startBot(env);
    const { user, prn } = await qrFor(6902);
    first.child.kill("SIGKILL");
    await first.exited;
    // Paid while no bot runs: no socket hears it.
    fonepay.pay(prn);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    const second = stack.startBot(env);
    await receipt;
    expect(sandbox.topups.length - topupsBefore).toBe(1);
    second.child.kill("SIGTERM");
    await second.exited;
  }, 60_000);

  it("two replicas: one socket for the offer, one top-up, one receipt", async () => {
    const { sandbox } = stack;
    const topupsBefore = sandbox.topups.length;
    const replicas = [stack.startBot(env), stack.startBot(env)];
    const { user, prn } = await qrFor(6901);
    await until(() => fonepay.sockets(prn) === 1, 10_000);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    fonepay.pay(prn);
    await receipt;
    await sleep(2_500); // both replicas' checks and passes: nothing more
    expect(
      fonepay.calls.requests.filter((r) => r.endpoint === "socket" && r.prn === prn),
    ).toHaveLength(1);
    expect(sandbox.topups.length - topupsBefore).toBe(1);
    expect(user.messages().filter((m) => m.text?.includes("Top-up successful"))).toHaveLength(1);
    for (const replica of replicas) replica.child.kill("SIGTERM");
    await Promise.all(replicas.map((replica) => replica.exited));
  }, 60_000);
});
