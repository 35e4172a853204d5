// The Khalti sandbox speaks as Khalti's web checkout does (the shapes and statuses a client must
// handle), serves a payment page a test can drive with fetch, and its faults misbehave as said.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createKhaltiSandbox,
  KHALTI_STATUSES,
  type KhaltiPayment,
  type KhaltiRequest,
  type KhaltiSandbox,
  type KhaltiSandboxOptions,
  type KhaltiStatus,
  type LookupFailure,
} from "../../tools/khalti-sandbox/server.js";

// 12:15:00.123 UTC is 18:00:00.123 in Nepal (UTC+05:45), so the default link expires at 18:30.
const START = new Date("2026-11-24T12:15:00.123Z");
const KEY = "test_secret_key_f59e8b7d18b4499ca40f68195a846e9b";
const ORDER = {
  return_url: "https://bot.example/khalti/return?session=abc",
  website_url: "https://bot.example/",
  amount: 12345,
  purchase_order_id: "topup-42",
  purchase_order_name: "TV <Gold> & more",
};

let clock = START;
let khalti: KhaltiSandbox;
const OPTIONS: KhaltiSandboxOptions = { secretKey: KEY, now: () => clock };

beforeAll(async () => {
  khalti = await createKhaltiSandbox(OPTIONS);
});
afterAll(() => khalti.close());
beforeEach(() => {
  clock = START;
  khalti.reset();
});

function advance(seconds: number): void {
  clock = new Date(clock.getTime() + seconds * 1000);
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

async function post<T = Record<string, unknown>>(
  path: string,
  body: unknown,
  { key = KEY, raw }: { key?: string | null; raw?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers.authorization = `Key ${key}`;
  const response = await fetch(`${khalti.url}${path}`, {
    method: "POST",
    headers,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.startsWith("application/json");
  return { status: response.status, body: isJson ? JSON.parse(text) : text };
}

interface InitiateBody {
  pidx: string;
  payment_url: string;
  expires_at: string;
  expires_in: number;
}

async function initiate(order: Record<string, unknown> = ORDER): Promise<InitiateBody> {
  const answer = await post<InitiateBody>("/api/v2/epayment/initiate/", order);
  expect(answer.status).toBe(200);
  return answer.body;
}

interface LookupBody {
  pidx: string;
  total_amount: number;
  status: KhaltiStatus;
  transaction_id: string | null;
  fee: number;
  refunded: boolean;
}

const lookup = (pidx: string) => post<LookupBody>("/api/v2/epayment/lookup/", { pidx });
const refund = (transactionId: string, body?: unknown) =>
  post(`/api/merchant-transaction/${transactionId}/refund/`, body);

/** Opens payment_url and submits its form for `button` as a browser would, not following. */
async function press(
  paymentUrl: string,
  button: "Pay" | "Pay by bank" | "Cancel",
): Promise<Response> {
  const page = await fetch(paymentUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  const form = new RegExp(
    `<form method="post" action="([^"]+)">((?:<input[^>]*>)*)<button[^>]*>${button}<`,
  );
  const [, action, inputs = ""] = form.exec(html) ?? [];
  if (!action) throw new Error(`No ${button} form in ${html}`);
  const fields = [...inputs.matchAll(/name="([^"]*)" value="([^"]*)"/g)].map(
    ([, name = "", value = ""]): [string, string] => [name, value],
  );
  return fetch(new URL(action, paymentUrl), {
    method: "POST",
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
}

function returned(response: Response): URL {
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location") ?? "");
}

async function paid(): Promise<{ pidx: string; transactionId: string }> {
  const { pidx } = await initiate();
  const payment = khalti.pay(pidx);
  return { pidx, transactionId: payment.transactionId ?? "" };
}

describe("initiate", () => {
  it("answers pidx, the sandbox's payment_url and the expiry in Nepal time", async () => {
    const body = await initiate();
    expect(body.pidx).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(body).toEqual({
      pidx: body.pidx,
      payment_url: `${khalti.url}/pay/${body.pidx}`,
      expires_at: "2026-11-24T18:30:00.123000+05:45",
      expires_in: 1800,
    });
    const payment = khalti.payment(body.pidx);
    expect(payment).toMatchObject({
      status: "Initiated",
      amount: 12345,
      totalAmount: 12345,
      purchaseOrderId: "topup-42",
      transactionId: null,
      redirected: false,
    });
  });

  it("takes the link's lifetime from expiresInSeconds", async () => {
    const short = await createKhaltiSandbox({ ...OPTIONS, expiresInSeconds: 60 });
    try {
      const response = await fetch(`${short.url}/api/v2/epayment/initiate/`, {
        method: "POST",
        headers: { authorization: `Key ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify(ORDER),
      });
      const body = (await response.json()) as InitiateBody;
      expect(body.expires_in).toBe(60);
      const [payment] = short.payments();
      expect(payment && payment.expiresAt.getTime() - payment.initiatedAt.getTime()).toBe(60_000);
    } finally {
      await short.close();
    }
  });

  it("names every missing field at once", async () => {
    const answer = await post("/api/v2/epayment/initiate/", {});
    expect(answer).toEqual({
      status: 400,
      body: {
        return_url: ["This field is required."],
        website_url: ["This field is required."],
        amount: ["This field is required."],
        purchase_order_id: ["This field is required."],
        purchase_order_name: ["This field is required."],
        error_key: "validation_error",
      },
    });
    expect(khalti.payments()).toEqual([]);
  });

  it("refuses an amount under 1000 paisa or not an integer, and bad URLs", async () => {
    const under = await post("/api/v2/epayment/initiate/", { ...ORDER, amount: 999 });
    expect(under).toEqual({
      status: 400,
      body: {
        amount: ["Amount should be greater than Rs. 10, that is 1000 paisa."],
        error_key: "validation_error",
      },
    });
    const fraction = await post("/api/v2/epayment/initiate/", { ...ORDER, amount: 1000.5 });
    expect(fraction.body.amount).toEqual(["A valid integer is required."]);
    const urls = await post("/api/v2/epayment/initiate/", {
      ...ORDER,
      return_url: "not a url",
      website_url: "ftp://bot.example/",
    });
    expect(urls.body).toEqual({
      return_url: ["Enter a valid URL."],
      website_url: ["Enter a valid URL."],
      error_key: "validation_error",
    });
    const blank = await post("/api/v2/epayment/initiate/", { ...ORDER, purchase_order_id: " " });
    expect(blank.body.purchase_order_id).toEqual(["This field may not be blank."]);
    expect(khalti.payments()).toEqual([]);
  });

  it("accepts the least amount, and a breakdown only when it adds up", async () => {
    await initiate({ ...ORDER, amount: 1000 });
    const breakdown = [
      { label: "Price", amount: 10000 },
      { label: "VAT", amount: 2345 },
    ];
    await initiate({ ...ORDER, amount_breakdown: breakdown });
    const wrong = await post("/api/v2/epayment/initiate/", {
      ...ORDER,
      amount_breakdown: [{ label: "Price", amount: 10000 }],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.amount_breakdown).toHaveLength(1);
  });

  it("answers 401 to a wrong or missing key, and records the attempt", async () => {
    const invalid = { status: 401, body: { detail: "Invalid token.", status_code: 401 } };
    expect(await post("/api/v2/epayment/initiate/", ORDER, { key: "wrong" })).toEqual(invalid);
    expect(await post("/api/v2/epayment/initiate/", ORDER, { key: null })).toEqual(invalid);
    expect(khalti.payments()).toEqual([]);
    const refused: KhaltiRequest = {
      endpoint: "initiate",
      body: ORDER,
      authorized: false,
      at: START,
    };
    expect(khalti.calls.requests).toEqual([refused, refused]);
  });

  it("records the body as sent, so a test can check nothing personal went out", async () => {
    const { pidx } = await initiate();
    expect(khalti.calls.initiated()).toEqual([ORDER]);
    const sent = khalti.payment(pidx)?.initiatedWith;
    expect(sent).toEqual(ORDER);
    expect(sent).not.toHaveProperty("customer_info");
  });

  it("answers a body that is not JSON, a path without its slash and a GET like Django", async () => {
    const garbage = await post("/api/v2/epayment/initiate/", undefined, { raw: "{nope" });
    expect(garbage.status).toBe(400);
    expect(String(garbage.body.detail)).toMatch(/^JSON parse error/);
    const slashless = await post("/api/v2/epayment/initiate", ORDER);
    expect(slashless).toEqual({ status: 404, body: { detail: "Not found." } });
    const get = await fetch(`${khalti.url}/api/v2/epayment/lookup/`);
    expect(get.status).toBe(405);
  });
});

describe("the payment page", () => {
  it("shows the order and the amount in rupees, escaped", async () => {
    const { payment_url } = await initiate();
    const html = await (await fetch(payment_url)).text();
    expect(html).toContain("TV &lt;Gold&gt; &amp; more");
    expect(html).toContain("NPR 123.45");
    expect(html).toMatch(/<button[^>]*>Pay</);
    expect(html).toMatch(/<button[^>]*>Cancel</);
  });

  it("looks like Khalti's, says it is a sandbox, and leads back to Telegram only when told where", async () => {
    const { payment_url } = await initiate();
    const html = await (await fetch(payment_url)).text();
    expect(html).toContain("--brand: #5c2d91;");
    expect(html).toContain('<span class="logo">Khalti</span>');
    expect(html).toContain("<b>Test mode</b> · the Khalti sandbox: no real money moves");
    expect(html).toContain('<p class="amount">NPR 123.45</p>');
    expect(html).not.toMatch(/Back to Telegram|<script/);
    // Run by the playground: every page, the closed and unknown ones too, leads to its chat.
    const chatUrl = "http://127.0.0.1:3000/t.me/topup_playground_bot";
    const played = await createKhaltiSandbox({ ...OPTIONS, chatUrl });
    try {
      const initiated = async () => {
        const answer = await fetch(`${played.url}/api/v2/epayment/initiate/`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Key ${KEY}` },
          body: JSON.stringify(ORDER),
        });
        return (await answer.json()) as { payment_url: string; pidx: string };
      };
      const open = await initiated();
      const paid = await initiated();
      played.pay(paid.pidx);
      for (const [url, status] of [
        [open.payment_url, 200],
        [paid.payment_url, 409],
        [`${played.url}/pay/unknown`, 404],
      ] as const) {
        const page = await fetch(url);
        expect(page.status).toBe(status);
        expect(await page.text()).toContain(`<a href="${chatUrl}">← Back to Telegram</a>`);
      }
    } finally {
      await played.close();
    }
  });

  it("Pay completes the payment and sends the browser back with Khalti's parameters", async () => {
    const { pidx, payment_url } = await initiate();
    const location = returned(await press(payment_url, "Pay"));
    const payment = khalti.payment(pidx) as KhaltiPayment;
    expect(payment).toMatchObject({ status: "Completed", redirected: true, fee: 370 });
    expect(payment.transactionId).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(`${location.origin}${location.pathname}`).toBe("https://bot.example/khalti/return");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      session: "abc",
      pidx,
      status: "Completed",
      transaction_id: payment.transactionId,
      tidx: payment.transactionId,
      txnId: payment.transactionId,
      amount: "12345",
      total_amount: "12345",
      mobile: expect.stringMatching(/^98X{5}\d{3}$/),
      purchase_order_id: "topup-42",
      purchase_order_name: "TV <Gold> & more",
    });
    const again = await fetch(payment_url);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already been paid");
  });

  it("Pay by bank: a bank payment through the buyer's Khalti account, its mobile masked unless revealed", async () => {
    const first = await initiate();
    const masked = returned(await press(first.payment_url, "Pay by bank"));
    expect(masked.searchParams.get("mobile")).toBe("98XXXXX001");
    expect(khalti.payment(first.pidx)).toMatchObject({
      status: "Completed",
      paidBy: "bank",
      payerMobile: "9800000001",
      mobile: "98XXXXX001",
    });
    // A browser of the test's own: another account, the mobile complete in the redirect.
    const second = await initiate();
    const revealed = await fetch(`${khalti.url}/pay/${second.pidx}/confirm`, {
      method: "POST",
      body: new URLSearchParams({ paid_by: "bank", mobile: "9800000003", reveal_mobile: "yes" }),
      redirect: "manual",
    });
    expect(returned(revealed).searchParams.get("mobile")).toBe("9800000003");
    expect(khalti.payment(second.pidx)).toMatchObject({ paidBy: "bank", mobile: "9800000003" });
    const wallet = await initiate();
    returned(await press(wallet.payment_url, "Pay"));
    expect(khalti.payment(wallet.pidx)).toMatchObject({ paidBy: "wallet" });
  });

  it("Cancel sends the browser back with status User canceled and no transaction", async () => {
    const { pidx, payment_url } = await initiate();
    const response = await press(payment_url, "Cancel");
    expect(response.headers.get("location")).toContain("status=User%20canceled");
    const parameters = Object.fromEntries(returned(response).searchParams);
    expect(parameters).toMatchObject({
      pidx,
      status: "User canceled",
      transaction_id: "",
      tidx: "",
      txnId: "",
      amount: "12345",
      total_amount: "12345",
      mobile: "",
      purchase_order_id: "topup-42",
      purchase_order_name: "TV <Gold> & more",
    });
    expect(khalti.payment(pidx)).toMatchObject({ status: "User canceled", redirected: true });
  });

  it("says an expired link has expired, and will not take a payment on it", async () => {
    const { pidx, payment_url } = await initiate();
    advance(1800);
    const page = await fetch(payment_url);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain("expired");
    const pay = await fetch(`${khalti.url}/pay/${pidx}/confirm`, {
      method: "POST",
      redirect: "manual",
    });
    expect(pay.status).toBe(410);
    expect(khalti.payment(pidx)?.status).toBe("Expired");
    expect((await fetch(`${khalti.url}/pay/unknownpidx`)).status).toBe(404);
  });
});

describe("lookup", () => {
  it("reports an Initiated payment with no transaction yet", async () => {
    const { pidx } = await initiate();
    expect(await lookup(pidx)).toEqual({
      status: 200,
      body: {
        pidx,
        total_amount: 12345,
        status: "Initiated",
        transaction_id: null,
        fee: 0,
        refunded: false,
      },
    });
  });

  it("reports a Completed payment with its transaction and fee", async () => {
    const { pidx, transactionId } = await paid();
    expect(await lookup(pidx)).toEqual({
      status: 200,
      body: {
        pidx,
        total_amount: 12345,
        status: "Completed",
        transaction_id: transactionId,
        fee: 370,
        refunded: false,
      },
    });
  });

  it("reports User canceled and Expired with HTTP 400 and the same body", async () => {
    const canceled = await initiate();
    khalti.cancel(canceled.pidx);
    const answer = await lookup(canceled.pidx);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: "User canceled", transaction_id: null });

    const expired = await initiate();
    khalti.expire(expired.pidx);
    expect(await lookup(expired.pidx)).toMatchObject({ status: 400, body: { status: "Expired" } });
  });

  it("reports Failed (final) with HTTP 400 and the same body; the page says it failed", async () => {
    const { pidx, payment_url } = await initiate();
    expect(khalti.fail(pidx)).toMatchObject({ status: "Failed", transactionId: null });
    expect(await lookup(pidx)).toMatchObject({
      status: 400,
      body: { pidx, status: "Failed", transaction_id: null, refunded: false },
    });
    const page = await fetch(payment_url);
    expect(page.status).toBe(409);
    expect(await page.text()).toContain("has failed");
    expect(() => khalti.pay(pidx)).toThrow(/it is Failed/);
    expect(() => khalti.fail(pidx)).toThrow(/it is Failed/);
  });

  it("turns an Initiated payment Expired once its time is up, not before", async () => {
    const { pidx } = await initiate();
    advance(1799);
    expect((await lookup(pidx)).body.status).toBe("Initiated");
    advance(1);
    expect(await lookup(pidx)).toMatchObject({ status: 400, body: { status: "Expired" } });
    expect(() => khalti.pay(pidx)).toThrow(/Cannot pay .*: it is Expired/);
  });

  it("answers 404 to an unknown pidx and 400 to none", async () => {
    expect(await lookup("NoSuchPidx")).toEqual({
      status: 404,
      body: { detail: "Not found.", error_key: "validation_error" },
    });
    expect(await post("/api/v2/epayment/lookup/", {})).toEqual({
      status: 400,
      body: { pidx: ["This field is required."], error_key: "validation_error" },
    });
  });

  it("only ever reports Khalti's statuses", async () => {
    const { pidx } = await paid();
    expect(KHALTI_STATUSES).toContain((await lookup(pidx)).body.status);
  });
});

describe("refund", () => {
  it("refunds a completed payment once, then refuses", async () => {
    const { pidx, transactionId } = await paid();
    expect(await refund(transactionId)).toEqual({
      status: 200,
      body: { detail: "Transaction refund successful." },
    });
    expect(await lookup(pidx)).toMatchObject({
      status: 200,
      body: { status: "Refunded", refunded: true, transaction_id: transactionId },
    });
    const again = await refund(transactionId);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: expect.stringMatching(/already been refunded/) });
    expect(khalti.calls.refunds(transactionId)).toBe(2);
  });

  it("refunds part, then the rest, never more than was paid", async () => {
    const { pidx, transactionId } = await paid();
    expect((await refund(transactionId, { amount: 5000 })).status).toBe(200);
    expect((await lookup(pidx)).body).toMatchObject({
      status: "Partially Refunded",
      refunded: true,
    });
    expect((await refund(transactionId, { amount: 9000 })).status).toBe(400);
    expect((await refund(transactionId, { amount: 0 })).status).toBe(400);
    expect((await refund(transactionId)).status).toBe(200);
    expect(khalti.payment(pidx)).toMatchObject({ status: "Refunded", refundedAmount: 12345 });
  });

  it("refunds a bank payment only with its payer's mobile: a field error on mobile otherwise", async () => {
    const { pidx } = await initiate();
    const { transactionId } = khalti.pay(pidx, { paidBy: "bank", mobile: "9800000002" });
    const id = transactionId ?? "";
    expect(await refund(id)).toEqual({
      status: 400,
      body: { mobile: ["This field is required."], error_key: "validation_error" },
    });
    const other = await refund(id, { mobile: "9800000001" });
    expect(other).toMatchObject({ status: 400, body: { error_key: "validation_error" } });
    expect(other.body.mobile).toEqual([expect.stringMatching(/not the Khalti account/)]);
    expect(khalti.payment(pidx)).toMatchObject({ status: "Completed", refunded: false });
    expect(await refund(id, { mobile: "9800000002" })).toEqual({
      status: 200,
      body: { detail: "Transaction refund successful." },
    });
    expect(khalti.payment(pidx)).toMatchObject({ status: "Refunded", refunded: true });
  });

  it("refuses an unknown or unpaid transaction, and a wrong key", async () => {
    const { pidx } = await initiate();
    expect(await refund("NoSuchTransaction")).toEqual({
      status: 400,
      body: { detail: "Transaction not found." },
    });
    expect((await refund(pidx)).status).toBe(400);
    const { transactionId } = await paid();
    const wrongKey = await post(`/api/merchant-transaction/${transactionId}/refund/`, undefined, {
      key: "wrong",
    });
    expect(wrongKey.status).toBe(401);
    expect(khalti.payment(khalti.payments()[1]?.pidx ?? "")?.status).toBe("Completed");
  });
});

describe("handle.pay: a browser that never returns", () => {
  it("completes the payment with no redirect, optionally for a different amount", async () => {
    const { pidx } = await initiate();
    const payment = khalti.pay(pidx, { amount: 10000 });
    expect(payment).toMatchObject({
      status: "Completed",
      amount: 12345,
      totalAmount: 10000,
      fee: 300,
      redirected: false,
    });
    expect((await lookup(pidx)).body).toMatchObject({ status: "Completed", total_amount: 10000 });
  });

  it("throws for an unknown pidx, a payment already paid and a bad amount", async () => {
    expect(() => khalti.pay("NoSuchPidx")).toThrow(/Unknown pidx/);
    const { pidx } = await paid();
    expect(() => khalti.pay(pidx)).toThrow(/it is Completed/);
    expect(() => khalti.cancel(pidx)).toThrow(/it is Completed/);
    const other = await initiate();
    expect(() => khalti.pay(other.pidx, { amount: 1.5 })).toThrow(RangeError);
  });

  it("refundOutside refunds from the dashboard (no mobile asked): part, then the rest", async () => {
    const { pidx } = await initiate();
    khalti.pay(pidx, { paidBy: "bank" });
    expect(khalti.refundOutside(pidx, { amount: 2345 })).toMatchObject({
      status: "Partially Refunded",
      refundedAmount: 2345,
      refunded: true,
    });
    expect((await lookup(pidx)).body).toMatchObject({
      status: "Partially Refunded",
      total_amount: 12345,
      refunded: true,
    });
    expect(khalti.refundOutside(pidx)).toMatchObject({ status: "Refunded", refundedAmount: 12345 });
    expect(() => khalti.refundOutside(pidx)).toThrow(/already been refunded/);
    const unpaid = await initiate();
    expect(() => khalti.refundOutside(unpaid.pidx)).toThrow(/Cannot refund/);
    expect(() => khalti.refundOutside("NoSuchPidx")).toThrow(/Unknown pidx/);
  });

  it("hands out snapshots, not its own state", async () => {
    const { pidx } = await initiate();
    const copy = khalti.payment(pidx) as KhaltiPayment;
    copy.status = "Completed";
    expect(khalti.payment(pidx)?.status).toBe("Initiated");
  });
});

describe("faults", () => {
  it("lookupPending answers Pending for that pidx until cleared", async () => {
    const { pidx, transactionId } = await paid();
    const other = await paid();
    khalti.faults.lookupPending(pidx);
    expect(await lookup(pidx)).toEqual({
      status: 200,
      body: {
        pidx,
        total_amount: 12345,
        status: "Pending",
        transaction_id: transactionId,
        fee: 370,
        refunded: false,
      },
    });
    expect((await lookup(other.pidx)).body.status).toBe("Completed");
    expect(khalti.payment(pidx)?.status).toBe("Completed");
    khalti.faults.clear();
    expect((await lookup(pidx)).body.status).toBe("Completed");
  });

  it("lookupFails answers HTTP 500 pages for n lookups, then behaves", async () => {
    const { pidx } = await paid();
    khalti.faults.lookupFails(2);
    for (let i = 0; i < 2; i += 1) {
      const failed = await lookup(pidx);
      expect(failed.status).toBe(500);
      expect(String(failed.body)).toContain("<html>");
    }
    expect((await lookup(pidx)).status).toBe(200);
    expect(khalti.calls.lookups(pidx)).toBe(3);
    expect(khalti.calls.lookups("other")).toBe(0);
  });

  it("lookupFails 'drop' closes the connection with no answer", async () => {
    const { pidx } = await paid();
    khalti.faults.lookupFails(1, "drop");
    await expect(lookup(pidx)).rejects.toThrow();
    expect((await lookup(pidx)).status).toBe(200);
    expect(khalti.calls.lookups()).toBe(2);
  });

  it("refundFails answers 500 and refunds nothing", async () => {
    const { pidx, transactionId } = await paid();
    khalti.faults.refundFails(1);
    expect((await refund(transactionId)).status).toBe(500);
    expect(khalti.payment(pidx)?.status).toBe("Completed");
    expect((await refund(transactionId)).status).toBe(200);
  });

  it("refundFails with afterEffect refunds but loses the answer", async () => {
    const { pidx, transactionId } = await paid();
    khalti.faults.refundFails(1, { afterEffect: true });
    expect((await refund(transactionId)).status).toBe(500);
    expect(khalti.payment(pidx)?.status).toBe("Refunded");
    expect((await refund(transactionId)).status).toBe(400);
  });

  it("refundFails drop closes the connection with no answer, after the refund or before it", async () => {
    const after = await paid();
    khalti.faults.refundFails(1, { afterEffect: true, how: "drop" });
    await expect(refund(after.transactionId)).rejects.toThrow();
    expect(khalti.payment(after.pidx)?.status).toBe("Refunded");
    const before = await paid();
    khalti.faults.refundFails(1, { how: "drop" });
    await expect(refund(before.transactionId)).rejects.toThrow();
    expect(khalti.payment(before.pidx)?.status).toBe("Completed");
  });

  it("refuses a count that is not a positive integer", () => {
    expect(() => khalti.faults.lookupFails(0)).toThrow(RangeError);
    expect(() => khalti.faults.refundFails(1.5)).toThrow(RangeError);
  });
});

describe("the control API", () => {
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${khalti.url}/_sandbox/${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("steers payments and faults like the handle", async () => {
    const { pidx } = await initiate();
    expect((await control("POST", "faults", { fault: "lookup-pending", pidx })).status).toBe(200);
    expect((await lookup(pidx)).body.status).toBe("Pending");
    expect((await control("DELETE", "faults")).status).toBe(200);
    const paidOver = await control("POST", `payments/${pidx}/pay`, { amount: 2000 });
    expect(paidOver.status).toBe(200);
    expect(await paidOver.json()).toMatchObject({ status: "Completed", totalAmount: 2000 });
    expect((await control("POST", `payments/${pidx}/cancel`)).status).toBe(409);
    expect((await control("POST", "payments/NoSuchPidx/expire")).status).toBe(404);
    const failing = await initiate();
    expect(await (await control("POST", `payments/${failing.pidx}/fail`)).json()).toMatchObject({
      status: "Failed",
    });
    const bank = await initiate();
    const byBank = { paidBy: "bank", mobile: "9800000004", revealMobile: true };
    expect(await (await control("POST", `payments/${bank.pidx}/pay`, byBank)).json()).toMatchObject(
      {
        paidBy: "bank",
        payerMobile: "9800000004",
        mobile: "9800000004",
      },
    );
    expect((await control("POST", `payments/${bank.pidx}/pay`, { paidBy: "card" })).status).toBe(
      400,
    );
    const part = await control("POST", `payments/${bank.pidx}/refund`, { amount: 1000 });
    expect(await part.json()).toMatchObject({ status: "Partially Refunded" });
    expect((await control("POST", `payments/${failing.pidx}/refund`)).status).toBe(409);

    const how: LookupFailure = "http-500";
    const lookupFault = { fault: "lookup-fails", times: 1, how };
    expect((await control("POST", "faults", lookupFault)).status).toBe(200);
    expect((await lookup(pidx)).status).toBe(500);
    const refundFault = { fault: "refund-fails", times: 1, afterEffect: true };
    expect((await control("POST", "faults", refundFault)).status).toBe(200);
    const transactionId = khalti.payment(pidx)?.transactionId ?? "";
    expect((await refund(transactionId)).status).toBe(500);

    const payments = (await (await control("GET", "payments")).json()) as { status: string }[];
    expect(payments.map((p) => p.status)).toEqual(["Refunded", "Failed", "Partially Refunded"]);
    const requests = (await (await control("GET", "requests")).json()) as unknown[];
    expect(requests).toHaveLength(khalti.calls.requests.length);
  });

  it("refuses a fault it does not know, and resets", async () => {
    expect((await control("POST", "faults", { fault: "nope" })).status).toBe(400);
    expect((await control("POST", "faults", { fault: "lookup-fails", times: 0 })).status).toBe(400);
    await initiate();
    expect((await control("POST", "reset")).status).toBe(200);
    expect(khalti.payments()).toEqual([]);
    expect(khalti.calls.requests).toEqual([]);
  });
});

describe("createKhaltiSandbox", () => {
  it("refuses a blank secret key and a bad expiry", async () => {
    await expect(createKhaltiSandbox({ secretKey: "" })).rejects.toThrow(RangeError);
    await expect(createKhaltiSandbox({ secretKey: KEY, expiresInSeconds: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});
