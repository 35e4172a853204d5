// The Fonepay sandbox: the QR request with its dataValidation checked (406 on a bad one), a QR
// text whose EMVCo checksum holds, a socket per QR pushing VERIFIED then the payment, the status
// call, the QR's page, and the faults the bot's tests use.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { checkQrMessage } from "../../src/adapters/payments/fonepay/fonepay-qr.js";
import {
  createFonepaySandbox,
  type FonepaySandbox,
  TEST_MERCHANT,
} from "../../tools/fonepay-sandbox/server.js";

let fonepay: FonepaySandbox;
beforeAll(async () => {
  fonepay = await createFonepaySandbox();
});
afterAll(() => fonepay.close());
beforeEach(() => fonepay.reset());

const hmac = (values: string[]) =>
  createHmac("sha512", TEST_MERCHANT.secretKey).update(values.join(",")).digest("hex");

async function post(path: string, body: object) {
  const response = await fetch(`${fonepay.apiUrl}/merchant/merchantDetailsForThirdParty/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const { merchantCode, username, password } = TEST_MERCHANT;

function askQr(prn: string, amount = "700.00", sign = hmac) {
  return post("thirdPartyDynamicQrDownload", {
    amount,
    prn,
    remarks1: "Topup",
    remarks2: "Gold",
    merchantCode,
    username,
    password,
    dataValidation: sign([amount, prn, merchantCode, "Topup", "Gold"]),
  });
}

const askStatus = (prn: string) =>
  post("thirdPartyDynamicQrGetStatus", {
    prn,
    merchantCode,
    username,
    password,
    dataValidation: hmac([prn, merchantCode]).toUpperCase(),
  });

function messages(url: string): { received: string[]; opened: Promise<void>; ws: WebSocket } {
  const ws = new WebSocket(url);
  const received: string[] = [];
  ws.on("message", (data) => received.push(String(data)));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { received, opened, ws };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe("the Fonepay sandbox", () => {
  it("makes a QR whose EMVCo checksum holds, pushes VERIFIED then the payment, and the status says success", async () => {
    const created = await askQr("prn-1");
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ success: true, status: "CREATED", statusCode: 201 });
    expect(checkQrMessage(String(created.body.qrMessage), "700.00").ok).toBe(true);
    // Not paid yet: `failed`, as the document's own pending example reads.
    expect((await askStatus("prn-1")).body).toMatchObject({
      prn: "prn-1",
      paymentStatus: "failed",
    });
    const socket = messages(String(created.body.thirdpartyQrWebSocketUrl));
    await socket.opened;
    fonepay.scan("prn-1");
    fonepay.pay("prn-1");
    await until(() => socket.received.length === 2);
    const inner = socket.received.map((text) => JSON.parse(JSON.parse(text).transactionStatus));
    expect(inner[0]).toMatchObject({ message: "VERIFIED", QRVerified: true });
    expect(inner[1]).toMatchObject({
      productNumber: "prn-1",
      amount: "700.00",
      paymentSuccess: true,
    });
    const status = await askStatus("prn-1");
    expect(status.body).toMatchObject({ prn: "prn-1", paymentStatus: "success", merchantCode });
    expect(status.body.fonepayTraceId).toEqual(expect.any(Number));
    socket.ws.close();
  });

  it("refuses a bad dataValidation, a prn used before, a long prn and odd remarks with 406", async () => {
    const bad = await askQr("prn-2", "700.00", () => "ab".repeat(64));
    expect(bad).toEqual({
      status: 406,
      body: expect.objectContaining({ errorCode: 406, message: "Data Validation Failed" }),
    });
    expect((await askQr("prn-2", "700.00", (v) => hmac(v).toUpperCase())).status).toBe(201);
    expect((await askQr("prn-2")).body.message).toBe("Duplicate prn");
    expect((await askQr("p".repeat(26))).status).toBe(406);
    expect((await askQr("prn-3", "12345678.00")).status).toBe(406);
  });

  it("fault knobs: a socket never opened, a status lagging, a socket's success the status denies, 5xx", async () => {
    const created = await askQr("prn-4");
    fonepay.faults.socket("refuse");
    const refused = messages(String(created.body.thirdpartyQrWebSocketUrl));
    await expect(refused.opened).rejects.toThrow();
    fonepay.faults.socket("normal");
    fonepay.faults.claimSuccess("prn-4");
    const liar = messages(String(created.body.thirdpartyQrWebSocketUrl));
    await until(() => liar.received.length === 1);
    expect((await askStatus("prn-4")).body.paymentStatus).toBe("failed");
    fonepay.leavePending("prn-4");
    expect((await askStatus("prn-4")).body.paymentStatus).toBe("pending");
    fonepay.pay("prn-4");
    fonepay.faults.statusLags(1);
    expect((await askStatus("prn-4")).body.paymentStatus).toBe("pending");
    expect((await askStatus("prn-4")).body.paymentStatus).toBe("success");
    fonepay.faults.fail("status", 1, "http-502-html");
    const gateway = await fetch(
      `${fonepay.apiUrl}/merchant/merchantDetailsForThirdParty/thirdPartyDynamicQrGetStatus`,
      { method: "POST", body: "{}" },
    );
    expect(gateway.status).toBe(502);
    liar.ws.close();
  });

  it("shows the QR on a page whose buttons act as a bank app", async () => {
    await askQr("prn-5");
    const page = await fetch(`${fonepay.url}/qr/prn-5`);
    const html = await page.text();
    expect(html).toContain("<svg");
    expect(html).toContain("NPR 700.00");
    await fetch(`${fonepay.url}/qr/prn-5/pay`, { method: "POST", redirect: "manual" });
    expect(fonepay.payment("prn-5")?.status).toBe("success");
  });
});
