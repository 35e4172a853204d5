// The eSewa sandbox speaks as eSewa ePay v2 does (the form's checks, the redirects with signed
// data, the status check and its statuses), serves a payment page a test can drive with fetch,
// and its faults misbehave as said. Forms are built by the bot's module (esewa-signature.ts) or
// signed here with node:crypto; the redirects are verified with the bot's module: the sandbox
// signs with code of its own, so the two agreeing says both follow eSewa's rule.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type EsewaForm,
  esewaForm,
  verifyEsewaRedirect,
} from "../../src/adapters/payments/esewa/esewa-signature.js";
import {
  createEsewaSandbox,
  ESEWA_STATUSES,
  type EsewaPayment,
  type EsewaSandbox,
  type EsewaSandboxOptions,
  type StatusFailure,
  TEST_PRODUCT_CODE,
  TEST_SECRET_KEY,
} from "../../tools/esewa-sandbox/server.js";

const START = new Date("2026-11-24T12:15:00.000Z");
const MERCHANT = {
  productCode: TEST_PRODUCT_CODE,
  secretKey: TEST_SECRET_KEY,
  successUrl: "https://bot.example/pay/esewa/success?purchase=p-42",
  failureUrl: "https://bot.example/pay/esewa/failure?purchase=p-42",
};

let esewa: EsewaSandbox;
const OPTIONS: EsewaSandboxOptions = { now: () => START };

beforeAll(async () => {
  esewa = await createEsewaSandbox(OPTIONS);
});
afterAll(() => esewa.close());
beforeEach(() => esewa.reset());

let uuids = 0;
const newUuid = () => `p-42-${++uuids}`;

const hmac = (text: string, key = TEST_SECRET_KEY) =>
  createHmac("sha256", key).update(text, "utf8").digest("base64");

/** Posts a form as a browser would, not following the redirect. */
function post(fields: Record<string, string>, url = esewa.formUrl): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

/** A form the bot's module built, posted: the page's address. */
async function submitted(total = "1000", uuid = newUuid()): Promise<{ uuid: string; page: URL }> {
  const response = await post({ ...esewaForm(MERCHANT, total, uuid) });
  expect(response.status).toBe(302);
  return { uuid, page: new URL(response.headers.get("location") ?? "") };
}

async function refusal(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

/** Opens the page and submits its form for `button` as a browser would, not following. */
async function press(page: URL, button: "Pay" | "Cancel" | "Leave pending"): Promise<Response> {
  const view = await fetch(page);
  expect(view.status).toBe(200);
  const html = await view.text();
  const form = new RegExp(`<form method="post" action="([^"]+)"><button[^>]*>${button}<`);
  const action = form.exec(html)?.[1];
  if (!action) throw new Error(`No ${button} form in ${html}`);
  return fetch(new URL(action, page), {
    method: "POST",
    body: new URLSearchParams(),
    redirect: "manual",
  });
}

function location(response: Response): string {
  expect(response.status).toBe(302);
  return response.headers.get("location") ?? "";
}

/** The raw `data` of a redirect, as it stands in the Location (not percent-decoded). */
const rawData = (where: string) => /[?&]data=([^&#]*)/.exec(where)?.[1];

interface StatusBody {
  product_code: string;
  transaction_uuid: string;
  total_amount: number | string;
  status: string;
  ref_id: string | null;
}

async function status(
  uuid: string,
  total = "1000",
  productCode = TEST_PRODUCT_CODE,
): Promise<{ status: number; text: string; body: StatusBody }> {
  const query = new URLSearchParams({
    product_code: productCode,
    total_amount: total,
    transaction_uuid: uuid,
  });
  const response = await fetch(`${esewa.statusUrl}?${query}`);
  const text = await response.text();
  let body: StatusBody;
  try {
    body = JSON.parse(text) as StatusBody;
  } catch {
    body = {} as StatusBody;
  }
  return { status: response.status, text, body };
}

describe("the form", () => {
  it("takes the bot's signed form and sends the browser to the payment page", async () => {
    const form = esewaForm(MERCHANT, "1000", "p-42-form");
    const response = await post({ ...form });
    expect(location(response)).toBe(`${esewa.url}/pay/p-42-form`);
    expect(esewa.payment("p-42-form")).toMatchObject({
      status: "INITIATED",
      amount: "1000",
      totalAmount: "1000",
      totalPaisa: 100_000,
      productCode: "EPAYTEST",
      successUrl: MERCHANT.successUrl,
      failureUrl: MERCHANT.failureUrl,
      submittedWith: { ...form },
      refId: null,
      redirectUrl: null,
      redirected: false,
      submittedAt: START,
    });
    expect(esewa.calls.forms()).toEqual([{ ...form }]);
    expect(esewa.calls.requests[0]).toMatchObject({ endpoint: "form", signatureValid: true });
  });

  it("checks the signature with its own HMAC over the form's own signed_field_names", async () => {
    const fields: Record<string, string> = {
      amount: "90",
      tax_amount: "10",
      total_amount: "100.50",
      transaction_uuid: "own-order",
      product_code: "EPAYTEST",
      product_service_charge: "0.25",
      product_delivery_charge: "0.25",
      success_url: MERCHANT.successUrl,
      failure_url: MERCHANT.failureUrl,
      signed_field_names: "product_code,total_amount,transaction_uuid,amount",
    };
    fields.signature = hmac(
      "product_code=EPAYTEST,total_amount=100.50,transaction_uuid=own-order,amount=90",
    );
    expect((await post(fields)).status).toBe(302);
    expect(esewa.payment("own-order")).toMatchObject({ totalPaisa: 10_050, taxAmount: "10" });
  });

  it.each([
    ["a signature made with another key", () => ({ signature: hmac("x", "k") })],
    ["a total changed after signing", () => ({ amount: "1", total_amount: "1" })],
    ["a uuid changed after signing", () => ({ transaction_uuid: "someone-else" })],
    [
      "a signature of the values in another order",
      (f: EsewaForm) => ({
        signature: hmac(
          `transaction_uuid=${f.transaction_uuid},total_amount=1000,product_code=EPAYTEST`,
        ),
      }),
    ],
    [
      "a list that leaves out product_code, signed as listed",
      (f: EsewaForm) => ({
        signed_field_names: "total_amount,transaction_uuid",
        signature: hmac(`total_amount=1000,transaction_uuid=${f.transaction_uuid}`),
      }),
    ],
    [
      "a list naming a field not posted",
      (f: EsewaForm) => ({
        signed_field_names: "total_amount,transaction_uuid,product_code,nonce",
        signature: hmac(
          `total_amount=1000,transaction_uuid=${f.transaction_uuid},product_code=EPAYTEST,nonce=`,
        ),
      }),
    ],
  ])("answers ES104 to %s, and takes no payment", async (_, change) => {
    const form = esewaForm(MERCHANT, "1000", newUuid());
    const response = await post({ ...form, ...change(form) });
    expect(await refusal(response)).toEqual({
      status: 400,
      body: { code: "ES104", error_message: "Invalid payload signature" },
    });
    expect(esewa.payments()).toEqual([]);
    expect(esewa.calls.requests).toMatchObject([{ endpoint: "form", signatureValid: false }]);
  });

  it("names the missing fields, and refuses a merchant it does not know", async () => {
    const missing = await refusal(await post({ amount: "1000" }));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 0 });
    const message = (missing.body as { error_message: string }).error_message;
    for (const field of ["total_amount", "transaction_uuid", "signature", "failure_url"]) {
      expect(message).toContain(field);
    }
    const form = esewaForm({ ...MERCHANT, productCode: "NP-ES-OTHER" }, "1000", newUuid());
    expect(await refusal(await post({ ...form }))).toEqual({
      status: 400,
      body: { code: 0, error_message: "Unable to fetch merchant key. Please try again later." },
    });
    expect(esewa.payments()).toEqual([]);
  });

  /** A form signed here (as any client could) with these fields changed. */
  function signed(change: Record<string, string>): Record<string, string> {
    const fields: Record<string, string> = { ...esewaForm(MERCHANT, "1000", newUuid()), ...change };
    fields.signature = hmac(
      `total_amount=${fields.total_amount},transaction_uuid=${fields.transaction_uuid},product_code=EPAYTEST`,
    );
    return fields;
  }

  it.each([
    ["parts that do not add up to total_amount", { amount: "900" }],
    ["a total of zero", { amount: "0", total_amount: "0" }],
    ["three decimals", { amount: "10.005", total_amount: "10.005" }],
    ["an amount that is not a number", { amount: "ten", total_amount: "ten" }],
    ["a uuid with an underscore", { transaction_uuid: "p_42" }],
    ["a success_url that is not http(s)", { success_url: "javascript:alert(1)" }],
  ])("refuses %s, signed correctly", async (_, change) => {
    const response = await post(signed(change));
    const answer = await refusal(response);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 0, error_message: expect.any(String) });
    expect(esewa.payments()).toEqual([]);
  });

  it("takes the parts in paisa: 0.1 + 0.2 is 0.3", async () => {
    const fields = signed({
      amount: "0.1",
      tax_amount: "0.2",
      total_amount: "0.3",
      transaction_uuid: "no-floats",
    });
    expect((await post(fields)).status).toBe(302);
    expect(esewa.payment("no-floats")?.totalPaisa).toBe(30);
  });

  it("opens the same unpaid payment when posted again, and refuses a used uuid", async () => {
    const { uuid } = await submitted();
    expect((await post({ ...esewaForm(MERCHANT, "1000", uuid) })).status).toBe(302);
    expect(esewa.payments()).toHaveLength(1);
    esewa.pay(uuid);
    const again = await refusal(await post({ ...esewaForm(MERCHANT, "1000", uuid) }));
    expect(again.status).toBe(400);
    expect(esewa.payment(uuid)?.status).toBe("COMPLETE");
  });

  it("answers 405 to a GET of the form, and 404 elsewhere", async () => {
    expect((await fetch(esewa.formUrl)).status).toBe(405);
    expect((await fetch(`${esewa.url}/api/epay/transaction/status`)).status).toBe(404);
  });
});

describe("the payment page", () => {
  it("says what is paid, with Pay, Cancel and Leave pending, without JavaScript", async () => {
    const { page } = await submitted("65.5");
    const html = await (await fetch(page)).text();
    expect(html).toContain("NPR 65.50");
    expect(html).toContain("EPAYTEST");
    expect(html).toMatch(/<button[^>]*>Pay</);
    expect(html).toMatch(/<button[^>]*>Cancel</);
    expect(html).toMatch(/<button[^>]*>Leave pending</);
    expect(html).not.toContain("<script");
  });

  it("looks like eSewa's, says it is a sandbox, and leads back to Telegram only when told where", async () => {
    const { page } = await submitted("65.5");
    const html = await (await fetch(page)).text();
    expect(html).toContain("--brand: #41a124;");
    expect(html).toContain('<span class="logo">eSewa</span>');
    expect(html).toContain("<b>Test mode</b> · the eSewa sandbox: no real money moves");
    expect(html).toContain('<b class="merchant-code">EPAYTEST</b>');
    expect(html).toMatch(/<p class="amount">.*Total:.* NPR 65\.50<\/p>/);
    expect(html).not.toContain("Back to Telegram");
    // Run by the playground: every page, the closed and unknown ones too, leads to its chat.
    const chatUrl = "http://127.0.0.1:3000/t.me/topup_playground_bot";
    const played = await createEsewaSandbox({ ...OPTIONS, chatUrl });
    try {
      const postTo = async (uuid: string) => {
        const response = await post({ ...esewaForm(MERCHANT, "100", uuid) }, played.formUrl);
        return new URL(response.headers.get("location") ?? "", played.url);
      };
      const open = await postTo(newUuid());
      const paidUuid = newUuid();
      const paid = await postTo(paidUuid);
      played.pay(paidUuid);
      for (const [url, status] of [
        [open, 200],
        [paid, 409],
        [new URL("/pay/unknown", played.url), 404],
      ] as const) {
        const answer = await fetch(url);
        expect(answer.status).toBe(status);
        expect(await answer.text()).toContain(`<a href="${chatUrl}">← Back to Telegram</a>`);
      }
    } finally {
      await played.close();
    }
  });

  it("Pay: COMPLETE, and success_url with data that verifies with the bot's module", async () => {
    const { uuid, page } = await submitted("1000");
    const where = location(await press(page, "Pay"));
    const payment = esewa.payment(uuid) as EsewaPayment;
    expect(payment).toMatchObject({ status: "COMPLETE", redirected: true, redirectUrl: where });
    expect(payment.refId).toMatch(/^[A-Z0-9]{7}$/);
    expect(where.startsWith(`${MERCHANT.successUrl}&data=`)).toBe(true);
    const data = rawData(where) ?? "";
    // eSewa writes the amount as a Java double, a bare JSON number: 1000.0.
    const json = Buffer.from(data, "base64").toString("utf8");
    expect(json).toContain('"total_amount":1000.0,');
    expect(JSON.parse(json)).toEqual({
      transaction_code: payment.refId,
      status: "COMPLETE",
      total_amount: 1000,
      transaction_uuid: uuid,
      product_code: "EPAYTEST",
      signed_field_names:
        "transaction_code,status,total_amount,transaction_uuid,product_code,signed_field_names",
      signature: expect.any(String),
    });
    expect(verifyEsewaRedirect(TEST_SECRET_KEY, data)).toMatchObject({
      ok: true,
      redirect: { status: "COMPLETE", totalAmount: "1000.0", transactionUuid: uuid },
    });
    // As the bot's HTTP server reads the query.
    const parsed = new URL(where).searchParams.get("data");
    expect(verifyEsewaRedirect(TEST_SECRET_KEY, parsed)).toMatchObject({ ok: true });
    expect(new URL(where).searchParams.get("purchase")).toBe("p-42");

    const again = await fetch(page);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already been paid");
  });

  it("Cancel: CANCELED, and failure_url as given", async () => {
    const { uuid, page } = await submitted();
    expect(location(await press(page, "Cancel"))).toBe(MERCHANT.failureUrl);
    expect(esewa.payment(uuid)).toMatchObject({ status: "CANCELED", redirected: true });
    expect((await status(uuid)).body).toMatchObject({ status: "CANCELED", ref_id: null });
  });

  it("Leave pending: PENDING with a reference, and failure_url as given", async () => {
    const { uuid, page } = await submitted();
    expect(location(await press(page, "Leave pending"))).toBe(MERCHANT.failureUrl);
    const payment = esewa.payment(uuid) as EsewaPayment;
    expect(payment.status).toBe("PENDING");
    expect((await status(uuid)).body).toEqual({
      product_code: "EPAYTEST",
      transaction_uuid: uuid,
      total_amount: 1000,
      status: "PENDING",
      ref_id: payment.refId,
    });
    expect((await fetch(page)).status).toBe(409);
  });

  it("answers 404 for an unknown payment and 405 to a GET of a button", async () => {
    expect((await fetch(`${esewa.url}/pay/nobody`)).status).toBe(404);
    const { page } = await submitted();
    expect((await fetch(`${page}/confirm`)).status).toBe(405);
  });
});

describe("the status check", () => {
  it("reads NOT_FOUND for a form posted and nothing paid", async () => {
    const { uuid } = await submitted();
    const answer = await status(uuid);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(
      `{"product_code":"EPAYTEST","transaction_uuid":"${uuid}","total_amount":1000.0,"status":"NOT_FOUND","ref_id":null}`,
    );
  });

  it("reads COMPLETE with the reference once paid, for the same amount however written", async () => {
    const { uuid } = await submitted("1000");
    const { refId } = esewa.pay(uuid);
    for (const total of ["1000", "1000.0", "1000.00"]) {
      const answer = await status(uuid, total);
      expect(answer.text).toContain('"total_amount":1000.0,');
      expect(answer.body).toEqual({
        product_code: "EPAYTEST",
        transaction_uuid: uuid,
        total_amount: 1000,
        status: "COMPLETE",
        ref_id: refId,
      });
    }
    expect(esewa.calls.statusChecks(uuid)).toBe(3);
    expect(esewa.calls.statusChecks("other")).toBe(0);
  });

  it("reads NOT_FOUND for another amount, an unknown uuid or another product code", async () => {
    const { uuid } = await submitted("1000");
    esewa.pay(uuid);
    expect((await status(uuid, "999.99")).body).toMatchObject({
      status: "NOT_FOUND",
      total_amount: 999.99,
      ref_id: null,
    });
    expect((await status("nobody")).body).toMatchObject({ status: "NOT_FOUND", ref_id: null });
    expect((await status(uuid, "1000", "NP-ES-OTHER")).body.status).toBe("NOT_FOUND");
  });

  it("reads what the back office set: a refund, a halt, an expiry", async () => {
    const { uuid } = await submitted();
    const paid = esewa.pay(uuid);
    for (const state of ["FULL_REFUND", "PARTIAL_REFUND", "AMBIGUOUS"] as const) {
      esewa.setStatus(uuid, state);
      expect((await status(uuid)).body).toMatchObject({ status: state, ref_id: paid.refId });
    }
    const other = await submitted();
    esewa.setStatus(other.uuid, "NOT_FOUND");
    expect((await status(other.uuid)).body.status).toBe("NOT_FOUND");
    expect((await fetch(other.page)).status).toBe(410);
  });

  it("refuses a check without its parameters, and a POST", async () => {
    const answer = await fetch(`${esewa.statusUrl}?transaction_uuid=x`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 0 });
    expect((await fetch(esewa.statusUrl, { method: "POST" })).status).toBe(405);
  });

  it("only ever reports eSewa's statuses", async () => {
    const { uuid } = await submitted();
    esewa.pay(uuid);
    expect(ESEWA_STATUSES).toContain((await status(uuid)).body.status);
  });
});

describe("the handle: a browser that never returns", () => {
  it("pays, cancels and leaves pending without a redirect, but says where it would go", async () => {
    const paid = await submitted();
    const payment = esewa.pay(paid.uuid);
    expect(payment).toMatchObject({ status: "COMPLETE", redirected: false });
    expect(verifyEsewaRedirect(TEST_SECRET_KEY, rawData(payment.redirectUrl ?? ""))).toMatchObject({
      ok: true,
    });
    const canceled = await submitted();
    expect(esewa.cancel(canceled.uuid)).toMatchObject({
      status: "CANCELED",
      redirectUrl: MERCHANT.failureUrl,
      redirected: false,
    });
    const pending = await submitted();
    expect(esewa.leavePending(pending.uuid).status).toBe("PENDING");
    expect(esewa.pay(pending.uuid).status).toBe("COMPLETE");
  });

  it("throws for an unknown uuid and a state that does not allow it", async () => {
    expect(() => esewa.pay("nobody")).toThrow(/Unknown transaction_uuid/);
    const { uuid } = await submitted();
    esewa.pay(uuid);
    expect(() => esewa.pay(uuid)).toThrow(/it is COMPLETE/);
    expect(() => esewa.cancel(uuid)).toThrow(/it is COMPLETE/);
    expect(() => esewa.leavePending(uuid)).toThrow(/it is COMPLETE/);
    expect(() => esewa.setStatus(uuid, "REFUNDED" as never)).toThrow(RangeError);
  });

  it("hands out snapshots, not its own state", async () => {
    const { uuid } = await submitted();
    const copy = esewa.payment(uuid) as EsewaPayment;
    copy.status = "COMPLETE";
    expect(esewa.payment(uuid)?.status).toBe("INITIATED");
  });
});

describe("options", () => {
  it("amountsAs string writes the amount as a string, still as eSewa's text", async () => {
    const strings = await createEsewaSandbox({ amountsAs: "string" });
    try {
      const uuid = newUuid();
      await post({ ...esewaForm(MERCHANT, "65.50", uuid) }, strings.formUrl);
      const where = strings.pay(uuid).redirectUrl ?? "";
      const json = Buffer.from(rawData(where) ?? "", "base64").toString("utf8");
      expect(json).toContain('"total_amount":"65.5",');
      expect(verifyEsewaRedirect(TEST_SECRET_KEY, rawData(where))).toMatchObject({
        ok: true,
        redirect: { totalAmount: "65.5" },
      });
      const query = `product_code=EPAYTEST&total_amount=65.50&transaction_uuid=${uuid}`;
      const text = await (await fetch(`${strings.statusUrl}?${query}`)).text();
      expect(text).toContain('"total_amount":"65.5"');
    } finally {
      await strings.close();
    }
  });

  it("failureData sends signed data to failure_url too", async () => {
    const withData = await createEsewaSandbox({ failureData: true });
    try {
      const uuid = newUuid();
      await post({ ...esewaForm(MERCHANT, "1000", uuid) }, withData.formUrl);
      const where = withData.cancel(uuid).redirectUrl ?? "";
      expect(where.startsWith(`${MERCHANT.failureUrl}&data=`)).toBe(true);
      expect(verifyEsewaRedirect(TEST_SECRET_KEY, rawData(where))).toMatchObject({
        ok: true,
        redirect: { status: "CANCELED" },
      });
    } finally {
      await withData.close();
    }
  });

  it("another merchant's key and product code", async () => {
    const own = await createEsewaSandbox({ secretKey: "merchant-key", productCode: "NP-ES-SHOP" });
    try {
      const merchant = { ...MERCHANT, secretKey: "merchant-key", productCode: "NP-ES-SHOP" };
      const uuid = newUuid();
      expect((await post({ ...esewaForm(merchant, "1000", uuid) }, own.formUrl)).status).toBe(302);
      const testKeyed = { ...esewaForm({ ...MERCHANT, productCode: "NP-ES-SHOP" }, "1", "x") };
      expect((await post(testKeyed, own.formUrl)).status).toBe(400);
      const where = own.pay(uuid).redirectUrl ?? "";
      expect(verifyEsewaRedirect("merchant-key", rawData(where)).ok).toBe(true);
      expect(verifyEsewaRedirect(TEST_SECRET_KEY, rawData(where)).ok).toBe(false);
    } finally {
      await own.close();
    }
  });

  it("sessionSeconds: a form left unpaid that long after its last post expires, a paid one does not", async () => {
    let clock = START.getTime();
    const timed = await createEsewaSandbox({ now: () => new Date(clock), sessionSeconds: 600 });
    try {
      const late = newUuid();
      const paid = newUuid();
      await post({ ...esewaForm(MERCHANT, "1000", late) }, timed.formUrl);
      await post({ ...esewaForm(MERCHANT, "1000", paid) }, timed.formUrl);
      clock += 599_000;
      timed.pay(paid);
      // Posted again just before its session ends: the session starts again.
      await post({ ...esewaForm(MERCHANT, "1000", late) }, timed.formUrl);
      clock += 599_000;
      expect(timed.payment(late)?.status).toBe("INITIATED");
      clock += 1_000;
      expect(timed.payment(late)?.status).toBe("NOT_FOUND");
      expect(() => timed.pay(late)).toThrow(/NOT_FOUND/);
      const page = await fetch(`${timed.url}/pay/${late}`);
      expect(page.status).toBe(410);
      expect(await page.text()).toContain("session has expired");
      const query = `product_code=EPAYTEST&total_amount=1000&transaction_uuid=${late}`;
      expect(await (await fetch(`${timed.statusUrl}?${query}`)).text()).toContain(
        '"status":"NOT_FOUND"',
      );
      expect(timed.payment(paid)?.status).toBe("COMPLETE");
      // Without the option a posted form stays payable however late (eSewa publishes no expiry).
      const open = newUuid();
      await post({ ...esewaForm(MERCHANT, "1000", open) });
      expect(esewa.pay(open).status).toBe("COMPLETE");
    } finally {
      await timed.close();
    }
  });

  it("refuses an empty key, a product code with spaces and an unknown amount style", async () => {
    await expect(createEsewaSandbox({ sessionSeconds: 0 })).rejects.toThrow(RangeError);
    await expect(createEsewaSandbox({ secretKey: "" })).rejects.toThrow(RangeError);
    await expect(createEsewaSandbox({ productCode: "EPAY TEST" })).rejects.toThrow(RangeError);
    await expect(createEsewaSandbox({ amountsAs: "float" as never })).rejects.toThrow(RangeError);
  });
});

describe("faults", () => {
  it("statusAmbiguous answers AMBIGUOUS for that uuid until cleared", async () => {
    const { uuid } = await submitted();
    const other = await submitted();
    esewa.pay(uuid);
    esewa.pay(other.uuid);
    esewa.faults.statusAmbiguous(uuid);
    expect((await status(uuid)).body.status).toBe("AMBIGUOUS");
    expect((await status(other.uuid)).body.status).toBe("COMPLETE");
    expect(esewa.payment(uuid)?.status).toBe("COMPLETE");
    esewa.faults.clear();
    expect((await status(uuid)).body.status).toBe("COMPLETE");
  });

  it("statusAnyAmount answers COMPLETE for the payment's own amount whatever is asked, until cleared", async () => {
    const { uuid } = await submitted("7");
    const { refId } = esewa.pay(uuid);
    expect((await status(uuid, "1000")).body.status).toBe("NOT_FOUND");
    esewa.faults.statusAnyAmount(uuid);
    const answer = await status(uuid, "1000");
    expect(answer.text).toContain('"total_amount":7.0,');
    expect(answer.body).toMatchObject({ status: "COMPLETE", total_amount: 7, ref_id: refId });
    esewa.faults.clear();
    expect((await status(uuid, "1000")).body.status).toBe("NOT_FOUND");
  });

  it.each([
    ["http-500", 500, /<html>/],
    ["http-503", 503, /^\{"code":0,"error_message":"Service is currently unavailable"\}$/],
    ["unavailable", 200, /^\{"code":0,"error_message":"Service is currently unavailable"\}$/],
    ["unavailable-status", 200, /"status":"Service is currently unavailable"/],
  ] as const)("statusFails %s for n checks, then behaves", async (how, code, text) => {
    const { uuid } = await submitted();
    esewa.pay(uuid);
    esewa.faults.statusFails(2, how as StatusFailure);
    for (let i = 0; i < 2; i += 1) {
      const failed = await status(uuid);
      expect(failed.status).toBe(code);
      expect(failed.text).toMatch(text);
    }
    expect((await status(uuid)).body.status).toBe("COMPLETE");
    expect(esewa.calls.statusChecks(uuid)).toBe(3);
  });

  it("statusFails drop closes the connection with no answer", async () => {
    const { uuid } = await submitted();
    esewa.faults.statusFails(1, "drop");
    await expect(status(uuid)).rejects.toThrow();
    expect((await status(uuid)).status).toBe(200);
  });

  it("statusSlow answers late, n times or until cleared", async () => {
    const { uuid } = await submitted();
    esewa.faults.statusSlow(300, 1);
    let started = performance.now();
    await status(uuid);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    started = performance.now();
    await status(uuid);
    expect(performance.now() - started).toBeLessThan(290);
    esewa.faults.statusSlow(200);
    for (let i = 0; i < 2; i += 1) {
      started = performance.now();
      await status(uuid);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    }
  });

  it("holdStatus keeps checks unanswered until released", async () => {
    const { uuid } = await submitted();
    esewa.faults.holdStatus();
    let answered = false;
    const held = status(uuid).then((answer) => {
      answered = true;
      return answer;
    });
    await expect.poll(() => esewa.faults.heldStatusChecks).toBe(1);
    expect(answered).toBe(false);
    esewa.pay(uuid);
    esewa.faults.releaseStatus();
    expect((await held).body.status).toBe("COMPLETE");
    expect(esewa.faults.heldStatusChecks).toBe(0);
    expect((await status(uuid)).body.status).toBe("COMPLETE");
  });

  it("forgeRedirect signs the next success redirect wrongly, then behaves", async () => {
    const first = await submitted();
    const second = await submitted();
    esewa.faults.forgeRedirect();
    const forged = location(await press(first.page, "Pay"));
    expect(verifyEsewaRedirect(TEST_SECRET_KEY, rawData(forged))).toEqual({
      ok: false,
      reason: "signature",
    });
    // Only the signature is wrong: the rest reads as a real one would.
    const json = JSON.parse(Buffer.from(rawData(forged) ?? "", "base64").toString("utf8"));
    expect(json).toMatchObject({ status: "COMPLETE", transaction_uuid: first.uuid });
    const real = location(await press(second.page, "Pay"));
    expect(verifyEsewaRedirect(TEST_SECRET_KEY, rawData(real)).ok).toBe(true);
  });

  it("refuses counts and delays that are not positive integers", () => {
    expect(() => esewa.faults.statusFails(0)).toThrow(RangeError);
    expect(() => esewa.faults.statusSlow(1.5)).toThrow(RangeError);
    expect(() => esewa.faults.forgeRedirect(-1)).toThrow(RangeError);
    expect(() => esewa.faults.statusFails(1, "teapot" as never)).toThrow(RangeError);
  });
});

describe("the control API", () => {
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${esewa.url}/_sandbox/${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("steers payments like the handle", async () => {
    const paid = await submitted();
    const answer = await control("POST", `payments/${paid.uuid}/pay`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ status: "COMPLETE", redirected: false });
    expect((await control("POST", `payments/${paid.uuid}/cancel`)).status).toBe(409);
    const refunded = await control("POST", `payments/${paid.uuid}/status`, {
      status: "FULL_REFUND",
    });
    expect(await refunded.json()).toMatchObject({ status: "FULL_REFUND" });
    expect((await status(paid.uuid)).body.status).toBe("FULL_REFUND");
    const badStatus = await control("POST", `payments/${paid.uuid}/status`, { status: "PAID" });
    expect(badStatus.status).toBe(400);

    const pending = await submitted();
    expect(await (await control("POST", `payments/${pending.uuid}/pending`)).json()).toMatchObject({
      status: "PENDING",
    });
    const canceled = await submitted();
    expect(await (await control("POST", `payments/${canceled.uuid}/cancel`)).json()).toMatchObject({
      status: "CANCELED",
    });
    expect((await control("POST", "payments/nobody/pay")).status).toBe(404);
    expect((await control("GET", "payments/nobody")).status).toBe(404);
    expect(await (await control("GET", `payments/${paid.uuid}`)).json()).toMatchObject({
      transactionUuid: paid.uuid,
      status: "FULL_REFUND",
    });
    const all = (await (await control("GET", "payments")).json()) as { status: string }[];
    expect(all.map((p) => p.status)).toEqual(["FULL_REFUND", "PENDING", "CANCELED"]);
  });

  it("counts status checks and lists requests", async () => {
    const { uuid } = await submitted();
    await status(uuid);
    await status(uuid);
    await status("other");
    const count = async (query: string) =>
      ((await (await control("GET", `status-checks${query}`)).json()) as { count: number }).count;
    expect(await count(`?transaction_uuid=${uuid}`)).toBe(2);
    expect(await count("")).toBe(3);
    const requests = (await (await control("GET", "requests")).json()) as unknown[];
    expect(requests).toHaveLength(4);
  });

  it("sets and clears faults", async () => {
    const { uuid } = await submitted();
    esewa.pay(uuid);
    const set = (body: unknown) => control("POST", "faults", body);
    expect((await set({ fault: "status-ambiguous", transaction_uuid: uuid })).status).toBe(200);
    expect((await status(uuid)).body.status).toBe("AMBIGUOUS");
    expect((await control("DELETE", "faults")).status).toBe(200);
    expect((await set({ fault: "status-fails", times: 1, how: "http-503" })).status).toBe(200);
    expect((await status(uuid)).status).toBe(503);
    expect((await set({ fault: "status-slow", ms: 100, times: 1 })).status).toBe(200);
    const started = performance.now();
    await status(uuid);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect((await set({ fault: "status-hold" })).status).toBe(200);
    const held = status(uuid);
    await expect.poll(() => esewa.faults.heldStatusChecks).toBe(1);
    expect((await control("POST", "faults/release")).status).toBe(200);
    expect((await held).body.status).toBe("COMPLETE");
    expect((await set({ fault: "redirect-forged", times: 1 })).status).toBe(200);
    const other = await submitted();
    const where = esewa.pay(other.uuid).redirectUrl ?? "";
    expect(verifyEsewaRedirect(TEST_SECRET_KEY, rawData(where)).ok).toBe(false);
  });

  it("refuses a fault it does not know, and resets", async () => {
    expect((await control("POST", "faults", { fault: "nope" })).status).toBe(400);
    const zero = await control("POST", "faults", { fault: "status-fails", times: 0 });
    expect(zero.status).toBe(400);
    const how = await control("POST", "faults", { fault: "status-fails", times: 1, how: "x" });
    expect(how.status).toBe(400);
    await submitted();
    expect((await control("POST", "reset")).status).toBe(200);
    expect(esewa.payments()).toEqual([]);
    expect(esewa.calls.requests).toEqual([]);
    expect((await control("GET", "nothing")).status).toBe(404);
  });
});
