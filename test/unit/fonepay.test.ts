// Fonepay's pure parts: the dataValidation signatures (the published examples that reproduce,
// and an independent computation), the EMVCo checksum of the QR text, the prn, the remarks and
// the status values.
import { webcrypto } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkQrMessage,
  crc16CcittFalse,
  emvcoChecksum,
  readEmvco,
} from "../../src/adapters/payments/fonepay/fonepay-qr.js";
import {
  fonepaySignature,
  qrRequestSignature,
  statusSignature,
} from "../../src/adapters/payments/fonepay/fonepay-signature.js";
import {
  amountText,
  parseFonepayJson,
  readQrAnswer,
  readSocketMessage,
  readStatusAnswer,
  remarksOf,
} from "../../src/adapters/payments/fonepay/fonepay-wire.js";
import { prnFor } from "../../src/adapters/payments/offer-references.js";

/** HMAC-SHA512 through WebCrypto: another implementation path than the adapter's. */
async function independentHmac(key: string, message: string): Promise<string> {
  const imported = await webcrypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: "SHA-512" },
    false,
    ["sign"],
  );
  const signed = await webcrypto.subtle.sign("HMAC", imported, new TextEncoder().encode(message));
  return Buffer.from(signed).toString("hex");
}

describe("Fonepay's dataValidation", () => {
  it("reproduces the published QR request examples that reproduce", () => {
    expect(
      qrRequestSignature("a7e3512f5032480a83137793cb2021dc", {
        amount: "14",
        prn: "5d76d323-d1f6",
        merchantCode: "NBQM",
        remarks1: "test1",
        remarks2: "test2",
      }),
    ).toBe(
      "5ae718032328ae5615fa4694dfbf3ecd13432bd49031e7285a3f8bc122ecbb8e833e83c7a11f895d30f3e8fd1906317aece113675166ae0d804ecf32a8bbdbaf",
    );
    expect(
      qrRequestSignature("fonepay", {
        amount: "50",
        prn: "check",
        merchantCode: "fonepay123",
        remarks1: "test1",
        remarks2: "test2",
      }),
    ).toBe(
      "f036eb09c5402a91e1926e904a423e66d041add18423959dad512b6f5fa37f1ea023197f6faae42f84b357914f5ed77723255d108b38c20c058677cfc8ac4204",
    );
  });

  it("writes upper-case hex when configured so, the same digits", () => {
    const lower = statusSignature("fonepay", { prn: "check", merchantCode: "fonepay123" });
    const upper = statusSignature("fonepay", { prn: "check", merchantCode: "fonepay123" }, "upper");
    expect(upper).toBe(lower.toUpperCase());
    expect(lower).toMatch(/^[0-9a-f]{128}$/);
  });

  it("signs the status call over prn,merchantCode, as an independent HMAC computes it", async () => {
    expect(statusSignature("fonepay", { prn: "abc-123", merchantCode: "fonepay123" })).toBe(
      await independentHmac("fonepay", "abc-123,fonepay123"),
    );
  });

  it("is HMAC-SHA512 over the values joined by commas, not URL-encoded, for any text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.array(fc.string({ maxLength: 30 }), { minLength: 1, maxLength: 5 }),
        async (key, values) => {
          expect(fonepaySignature(key, values)).toBe(await independentHmac(key, values.join(",")));
        },
      ),
      { numRuns: 50 },
    );
  });
});

/** Built by hand, its CRC computed by another implementation (Python's binascii.crc_hqx). */
const SAMPLE_QR =
  "00020101021226290011fonepay.com011022223300015204411153035245406700.005802NP5909TEST SHOP6009KATHMANDU62290125abc12345-0123456789abcdef63041354";

describe("the EMVCo checksum of Fonepay's QR text", () => {
  it("is CRC-16/CCITT-FALSE (its catalogue check value)", () => {
    expect(crc16CcittFalse("123456789")).toBe(0x29b1);
  });

  it("holds for a payload checked independently, and asks the amount it states", () => {
    const check = checkQrMessage(SAMPLE_QR, "700.00");
    expect(check.ok).toBe(true);
    expect(checkQrMessage(SAMPLE_QR, "700").ok).toBe(true);
    expect(emvcoChecksum(SAMPLE_QR.slice(0, -8))).toBe(SAMPLE_QR);
  });

  it("fails a text altered anywhere, cut, or asking another amount", () => {
    expect(readEmvco(SAMPLE_QR.replace("700.00", "100.00"))).toMatchObject({ ok: false });
    expect(readEmvco(`${SAMPLE_QR.slice(0, -4)}1355`)).toEqual({
      ok: false,
      reason: "checksum fails",
    });
    expect(readEmvco(SAMPLE_QR.slice(0, -1)).ok).toBe(false);
    expect(readEmvco(`${SAMPLE_QR}00`).ok).toBe(false);
    expect(readEmvco("not a qr").ok).toBe(false);
    expect(checkQrMessage(SAMPLE_QR, "70.00")).toEqual({
      ok: false,
      reason: "the amount in the QR is not the amount asked",
    });
    fc.assert(
      fc.property(
        fc.nat({ max: SAMPLE_QR.length - 5 }),
        fc.constantFrom(..."0123456789ABCDEFXYZ"),
        (at, char) => {
          fc.pre(SAMPLE_QR[at] !== char);
          const altered = `${SAMPLE_QR.slice(0, at)}${char}${SAMPLE_QR.slice(at + 1)}`;
          expect(readEmvco(altered).ok).toBe(false);
        },
      ),
    );
  });

  it("reads whatever well-formed payload the checksum is written for", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9 .-]{1,40}$/), (name) => {
        const body = `00020101021259${String(name.length).padStart(2, "0")}${name}`;
        expect(readEmvco(emvcoChecksum(body)).ok).toBe(true);
      }),
    );
  });

  // Review of #39, finding 1: the status answer carries no amount, so the QR's own amount in
  // rupees is what binds it to the prn; without it the bank app lets the payer type any amount.
  it("is not shown without an amount (tag 54) or in another currency than rupees (tag 53)", () => {
    const tlv = (tag: string, value: string) =>
      `${tag}${String(value.length).padStart(2, "0")}${value}`;
    const qr = (currency: string, amount: string | null) =>
      emvcoChecksum(
        [
          tlv("00", "01"),
          tlv("01", "12"),
          tlv("26", tlv("00", "fonepay.com") + tlv("01", "shop")),
          tlv("52", "4814"),
          tlv("53", currency),
          ...(amount === null ? [] : [tlv("54", amount)]),
          tlv("58", "NP"),
          tlv("59", "SHOP"),
        ].join(""),
      );
    expect(checkQrMessage(qr("524", "700.00"), "700.00").ok).toBe(true);
    expect(checkQrMessage(qr("524", null), "700.00")).toEqual({
      ok: false,
      reason: "the QR states no amount",
    });
    expect(checkQrMessage(qr("840", "700.00"), "700.00")).toEqual({
      ok: false,
      reason: "the QR is not in rupees",
    });
    const noCurrency = emvcoChecksum(
      [tlv("00", "01"), tlv("01", "12"), tlv("54", "700.00"), tlv("58", "NP")].join(""),
    );
    expect(checkQrMessage(noCurrency, "700.00").ok).toBe(false);
  });
});

describe("the prn", () => {
  it("is new for every QR, at most 25 letters, digits and hyphens, whatever the purchase id", () => {
    const prns = Array.from({ length: 200 }, () => prnFor("a1b2c3d4e5-3"));
    expect(new Set(prns).size).toBe(200);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (purchaseId) => {
        expect(prnFor(purchaseId)).toMatch(/^[A-Za-z0-9-]{1,25}$/);
      }),
    );
    // Traceable: the same purchase's QRs share their first part.
    expect(new Set(prns.map((prn) => prn.slice(0, 8))).size).toBe(1);
  });
});

describe("the QR request's values", () => {
  it("keeps remarks within 1–25 letters and digits", () => {
    expect(remarksOf("Gold HD 1 month (NPR 700)", "Topup")).toBe("GoldHD1monthNPR700");
    expect(remarksOf("गोल्ड", "Topup")).toBe("Topup");
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (text) => {
        expect(remarksOf(text, "Topup")).toMatch(/^[A-Za-z0-9]{1,25}$/);
      }),
    );
  });

  it("takes amounts of 1–10 characters, digits with at most one point", () => {
    expect(amountText("700.00")).toBe("700.00");
    expect(amountText("1234567.00")).toBe("1234567.00");
    expect(amountText("12345678.00")).toBeNull();
    expect(amountText("1.2.3")).toBeNull();
  });
});

describe("Fonepay's answers", () => {
  it("reads a QR created, a refusal (406) and anything else", () => {
    expect(
      readQrAnswer(201, {
        success: true,
        status: "CREATED",
        statusCode: 201,
        qrMessage: SAMPLE_QR,
        thirdpartyQrWebSocketUrl: "wss://ws.example/merchant-endpoint/x",
      }),
    ).toEqual({
      kind: "created",
      qrMessage: SAMPLE_QR,
      webSocketUrl: "wss://ws.example/merchant-endpoint/x",
    });
    expect(readQrAnswer(200, { errorCode: 406, message: "Data Validation Failed" })).toEqual({
      kind: "refused",
      code: "406",
      message: "Data Validation Failed",
    });
    expect(readQrAnswer(502, "<html>")).toEqual({ kind: "unreadable" });
    // Review of #39, finding 9: a gateway's JSON error on the way is nothing Fonepay said.
    expect(readQrAnswer(404, { statusCode: 404, message: "Not Found" })).toEqual({
      kind: "unreadable",
    });
    expect(readQrAnswer(404, { status: 404, error: "Not Found", path: "/api/x" })).toEqual({
      kind: "unreadable",
    });
    expect(readQrAnswer(200, { success: true })).toEqual({ kind: "unreadable" });
  });

  it("believes only success for that prn; failed is not pending; anything else is not final", () => {
    const answer = (paymentStatus: unknown, prn = "p-1") => ({
      fonepayTraceId: 8899,
      merchantCode: "fonepay123",
      prn,
      paymentStatus,
    });
    expect(readStatusAnswer(200, answer("success"), "p-1", "fonepay123")).toEqual({
      state: "paid",
      traceId: "8899",
    });
    expect(readStatusAnswer(200, answer("failed"), "p-1", "fonepay123")).toEqual({
      state: "failed",
    });
    for (const other of ["pending", "PENDING", "initiated", ""]) {
      expect(readStatusAnswer(200, answer(other), "p-1", "fonepay123")).toEqual({
        state: "pending",
      });
    }
    expect(readStatusAnswer(200, answer("success", "p-2"), "p-1", "fonepay123").state).toBe(
      "unknown",
    );
    expect(readStatusAnswer(200, answer("success"), "p-1", "other").state).toBe("unknown");
    expect(readStatusAnswer(500, answer("success"), "p-1", "fonepay123").state).toBe("unknown");
    expect(readStatusAnswer(200, { paymentStatus: 1 }, "p-1", "fonepay123").state).toBe("unknown");
  });

  // Review of #39, finding 2: success is believed only for the prn asked; an answer that names
  // none (a gateway's cached or generic body) is no answer, whatever it says.
  it("takes an answer naming no prn (or a null one) as no answer; a merchant only when named", () => {
    const { prn: _prn, ...noPrn } = {
      fonepayTraceId: 8899,
      merchantCode: "fonepay123",
      prn: "p-1",
    };
    for (const paymentStatus of ["success", "failed", "pending"]) {
      expect(readStatusAnswer(200, { paymentStatus }, "p-1", "fonepay123")).toEqual({
        state: "unknown",
        reason: "the answer names no prn",
      });
      expect(readStatusAnswer(200, { ...noPrn, paymentStatus }, "p-1", "fonepay123").state).toBe(
        "unknown",
      );
      expect(readStatusAnswer(200, { prn: null, paymentStatus }, "p-1", "fonepay123").state).toBe(
        "unknown",
      );
    }
    expect(
      readStatusAnswer(200, { prn: "p-1", paymentStatus: "success" }, "p-1", "fonepay123"),
    ).toEqual({ state: "paid", traceId: null });
  });

  it("listens only on wss sockets, plain ws only on this machine (review of #39, finding 12)", () => {
    const created = (thirdpartyQrWebSocketUrl: string) =>
      readQrAnswer(201, { success: true, qrMessage: SAMPLE_QR, thirdpartyQrWebSocketUrl });
    expect(created("wss://ws.fonepay.example/x")).toMatchObject({
      webSocketUrl: "wss://ws.fonepay.example/x",
    });
    expect(created("ws://ws.fonepay.example/x")).toMatchObject({ webSocketUrl: null });
    expect(created("ws://127.0.0.1:4000/x")).toMatchObject({
      webSocketUrl: "ws://127.0.0.1:4000/x",
    });
    expect(created("ws://[::1]:4000/x")).toMatchObject({ webSocketUrl: "ws://[::1]:4000/x" });
    expect(created("https://ws.fonepay.example/x")).toMatchObject({ webSocketUrl: null });
    expect(created("not a url")).toMatchObject({ webSocketUrl: null });
  });

  it("keeps a numeric trace id's digits as text (review of #39, finding 3)", () => {
    expect(parseFonepayJson('{"fonepayTraceId": 12345678901234567891, "n": 1.50}')).toEqual({
      fonepayTraceId: "12345678901234567891",
      n: 1.5,
    });
    expect(parseFonepayJson('{"fonepayTraceId": "0012"}')).toEqual({ fonepayTraceId: "0012" });
    expect(parseFonepayJson("<html>")).toBeNull();
  });

  it("reads the socket's messages as hints, their status a JSON string", () => {
    const message = (status: object) =>
      JSON.stringify({ merchantId: 1, deviceId: "d", transactionStatus: JSON.stringify(status) });
    expect(
      readSocketMessage(message({ success: true, message: "VERIFIED", QRVerified: true })),
    ).toEqual({ kind: "scanned" });
    expect(
      readSocketMessage(message({ traceId: 1, productNumber: "p", paymentSuccess: true })),
    ).toEqual({ kind: "payment", success: true });
    expect(readSocketMessage(message({ traceId: 1, paymentSuccess: false }))).toEqual({
      kind: "payment",
      success: false,
    });
    expect(readSocketMessage("garbage")).toEqual({ kind: "other" });
  });
});
