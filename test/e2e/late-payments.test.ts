// Money a payment system took after the bot ended its purchase (issue 36, point 1): a Khalti
// link and an eSewa form stay payable at the payment system whatever the bot did (Cancel, a
// newer purchase, the window over, another method chosen), so the bot watches each offer until
// the system's own expiry. A payment found then is recorded and settled: topped up when nothing
// else paid for the purchase (the buyer told it came late, then the receipt), owed back
// otherwise; and the return and success pages ask the payment system about that very offer,
// never saying "nothing was charged" for one it took.
import type { Message } from "grammy/types";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import { type EsewaGateways, startEsewaGateways } from "../support/esewa-gateways.js";
import { type KhaltiGateways, startKhaltiGateways } from "../support/khalti-gateways.js";
import { until } from "../support/wait.js";

const SECRET = "late-e2e-secret";
const ADMIN = 9_901;
const NOTHING_CHARGED = /nothing was charged/i;
let world: EsewaGateways;
let khalti: KhaltiSandbox;
let nextUser = 9_910;

beforeAll(async () => {
  khalti = await createKhaltiSandbox({ secretKey: SECRET });
  world = await startEsewaGateways("late_payments", {
    PAYMENT_MODE: "",
    PAYMENT_METHODS: "khalti,esewa,telegram",
    PAYMENT_PROVIDER_TOKEN: "284685063:TEST:late",
    KHALTI_SECRET_KEY: SECRET,
    KHALTI_BASE_URL: khalti.url,
    ADMIN_USER_IDS: String(ADMIN),
    // The pages ask the payment system at most this often per offer.
    RETURN_PAGE_LOOKUP_MS: "300",
  });
});
afterEach(() => {
  world.reset();
  khalti.faults.clear();
});
afterAll(async () => {
  await world?.stop();
  await khalti?.close();
});

const topups = () => world.stack.sandbox.topups.length;
const shown = (user: ChatUser, message: Message) =>
  user.messages().find((m) => m.message_id === message.message_id);

/** A buyer's purchases and their payments, as the ledger holds them, oldest first. */
async function ledgerOf(buyer: number) {
  const client = new pg.Client({ connectionString: world.stack.env.DATABASE_URL });
  await client.connect();
  try {
    const purchases = await client.query<{ id: string; phase: string }>(
      "SELECT id, phase FROM purchases WHERE buyer = $1 ORDER BY created_at",
      [buyer],
    );
    const payments = await client.query<{
      purchase_id: string;
      method: string;
      applied: boolean;
      refund: string;
    }>("SELECT purchase_id, method, applied, refund FROM payments WHERE buyer = $1 ORDER BY id", [
      buyer,
    ]);
    const late = await client.query<{ purchase_id: string }>(
      `SELECT e.purchase_id FROM purchase_events e JOIN purchases p ON p.id = e.purchase_id
        WHERE p.buyer = $1 AND e.from_phase = 'unpaid' AND e.to_phase = 'paid'`,
      [buyer],
    );
    return {
      purchases: purchases.rows,
      payments: payments.rows,
      paidLate: late.rows.map((row) => row.purchase_id),
    };
  } finally {
    await client.end();
  }
}

/** A new subscriber at the confirm screen of 1000001's Gold renewal (NPR 700). */
async function atConfirm(user?: ChatUser): Promise<ChatUser> {
  const buyer =
    user ?? world.stack.emulator.user({ id: ++nextUser, first_name: "La", language_code: "en" });
  await expectReply(buyer, () => buyer.sendText("/topup 1000001"), "Choose a package");
  await expectReply(buyer, () => buyer.press(/Renew/), "Please confirm");
  return buyer;
}

/** Khalti chosen: its link in the chat (the message with its button), and its pidx. */
async function khaltiLink(user: ChatUser): Promise<{ link: Message; pidx: string }> {
  const made = khalti.payments().length;
  const shows = (message: Message) =>
    (message.text ?? "").includes("with Khalti below") &&
    buttonsOf(user, message).some((label) => /Pay NPR.*with Khalti/.test(label));
  const link = user.waitForMessage(shows);
  user.press(/Pay with Khalti/);
  await link;
  await until(() => khalti.payments().length > made, 5_000);
  return { link: await link, pidx: khalti.payments().at(-1)?.pidx ?? "" };
}

/** eSewa chosen: its link, the pay page opened and its signed form posted to eSewa. */
async function esewaPosted(user: ChatUser): Promise<{ link: Message; uuid: string }> {
  const link = await expectReply(user, () => user.press(/Pay with eSewa/), "with eSewa below");
  const button = link.reply_markup?.inline_keyboard.flat().find((b) => "url" in b);
  const payUrl = button && "url" in button ? (button.url ?? "") : "";
  const page = await world.openPayPage(payUrl);
  await world.submit(page);
  return { link, uuid: payUrl.split("/").at(-1) ?? "" };
}

/** The buyer presses Cancel under the link: the purchase ends, nothing charged yet. */
async function cancel(user: ChatUser, link: Message): Promise<void> {
  await expectReply(
    user,
    () => user.press("Cancel", { messageId: link.message_id }),
    "Payment cancelled",
  );
  await until(() => buttonsOf(user, shown(user, link)).length === 0, 5_000);
}

/** The browser pays Khalti's page left open, and follows Khalti back to the bot's return page. */
async function payKhaltiPage(pidx: string): Promise<string> {
  const paid = await fetch(`${khalti.url}/pay/${pidx}/confirm`, {
    method: "POST",
    redirect: "manual",
  });
  expect(paid.status).toBe(302);
  return (await fetch(paid.headers.get("location") ?? "")).text();
}

/** The browser pays eSewa's page of a form posted earlier, and follows eSewa back. */
async function payEsewaPage(uuid: string): Promise<string> {
  const paid = await fetch(`${world.esewa.url}/pay/${uuid}/confirm`, {
    method: "POST",
    redirect: "manual",
  });
  expect(paid.status).toBe(302);
  return (await fetch(paid.headers.get("location") ?? "")).text();
}

describe("a payment made after the bot ended its purchase", () => {
  it("Cancel, then the Khalti page still open is paid: topped up once, the buyer told it came late", async () => {
    const user = await atConfirm();
    const { link, pidx } = await khaltiLink(user);
    await cancel(user, link);
    expect((await ledgerOf(user.id)).purchases.map((p) => p.phase)).toEqual(["unpaid"]);
    // Khalti cannot cancel a link: it is still payable there.
    expect(khalti.payment(pidx)?.status).toBe("Initiated");
    const late = user.waitForText("arrived after the purchase was cancelled", { timeoutMs: 8_000 });
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    const page = await payKhaltiPage(pidx);
    expect(page).toContain("Payment received");
    expect(page).not.toMatch(NOTHING_CHARGED);
    expect((await late).text).toMatch(/NPR\s700\.00/);
    expect((await receipt).text).toContain("with Khalti");
    // The late notice came first, then the receipt.
    const texts = user.messages().map((m) => m.text ?? "");
    expect(texts.findIndex((t) => t.includes("arrived after"))).toBeLessThan(
      texts.findIndex((t) => t.includes("Top-up successful")),
    );
    expect(topups()).toBe(1);
    const ledger = await ledgerOf(user.id);
    expect(ledger.purchases.map((p) => p.phase)).toEqual(["charged"]);
    expect(ledger.payments).toEqual([
      expect.objectContaining({ method: "khalti", applied: true, refund: "none" }),
    ]);
    expect(ledger.paidLate).toEqual([ledger.purchases[0]?.id]);
    // Later hits on the return page say the same, and nothing is topped up twice.
    const again = await fetch(`${world.base}/pay/khalti/return?pidx=${pidx}`);
    expect(await again.text()).toContain("Payment received");
    expect(topups()).toBe(1);
  });

  it("Cancel, then the eSewa form already posted is paid: the pay page tells the truth, then one top-up", async () => {
    const user = await atConfirm();
    const { link, uuid } = await esewaPosted(user);
    await cancel(user, link);
    // The pay page of the ended purchase makes no new form, and says only what eSewa says.
    const payPage = await world.openPayPage(`${world.base}/pay/esewa/${uuid}`);
    expect(payPage.status).toBe(200);
    expect(payPage.html).not.toContain("<form");
    expect(payPage.html).toContain("has not confirmed a payment yet");
    expect(payPage.html).not.toMatch(NOTHING_CHARGED);
    const late = user.waitForText("arrived after the purchase was cancelled", { timeoutMs: 8_000 });
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    // Right after the pay page's own check the page may say what that one found (at most one
    // check an interval): never "nothing was charged", and "received" once eSewa is asked again.
    expect(await payEsewaPage(uuid)).not.toMatch(NOTHING_CHARGED);
    const success = `${world.base}/pay/esewa/failure/${uuid}`;
    await until(
      async () => (await (await fetch(success)).text()).includes("Payment received"),
      3_000,
    );
    await late;
    expect((await receipt).text).toContain("with eSewa");
    expect(topups()).toBe(1);
    const ledger = await ledgerOf(user.id);
    expect(ledger.purchases.map((p) => p.phase)).toEqual(["charged"]);
    expect(ledger.paidLate).toHaveLength(1);
    // Its failure page, asked again past the pages' interval, still says it was received.
    const failure = `${world.base}/pay/esewa/failure/${uuid}`;
    await until(
      async () => (await (await fetch(failure)).text()).includes("Payment received"),
      3_000,
    );
  });

  it("a newer purchase, then the older link is paid: the older one topped up, the newer still open", async () => {
    const user = await atConfirm();
    const older = await khaltiLink(user);
    await atConfirm(user);
    const newer = await khaltiLink(user);
    await until(() => buttonsOf(user, shown(user, older.link)).length === 0, 5_000);
    expect((await ledgerOf(user.id)).purchases.map((p) => p.phase)).toEqual([
      "unpaid",
      "awaiting-payment",
    ]);
    const late = user.waitForText("arrived after the purchase was cancelled", { timeoutMs: 8_000 });
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    khalti.pay(older.pidx);
    await late;
    await receipt;
    expect(topups()).toBe(1);
    const ledger = await ledgerOf(user.id);
    expect(ledger.purchases.map((p) => p.phase)).toEqual(["charged", "awaiting-payment"]);
    expect(ledger.paidLate).toEqual([ledger.purchases[0]?.id]);
    // The newer link is still the buyer's to pay: paid, it is a second top-up of its own.
    khalti.pay(newer.pidx);
    await until(async () => topups() === 2, 10_000);
    // The provider has it; the ledger writes "charged" once its answer is read.
    const phases = async () => (await ledgerOf(user.id)).purchases.map((p) => p.phase);
    await until(async () => (await phases()).every((phase) => phase === "charged"), 10_000);
    expect(await phases()).toEqual(["charged", "charged"]);
    expect(topups()).toBe(2);
  });

  it("two purchases of one buyer paid at once (one late): each topped up once, one after the other", async () => {
    const user = await atConfirm();
    const older = await khaltiLink(user);
    await atConfirm(user);
    const newer = await khaltiLink(user);
    await until(async () => (await ledgerOf(user.id)).purchases[0]?.phase === "unpaid", 5_000);
    // The provider answers slowly: whichever top-up goes first is in flight when the other comes.
    world.stack.sandbox.setFault("subscription-package-topup", {
      kind: "latency",
      ms: 2_500,
      times: 1,
    });
    khalti.pay(older.pidx);
    khalti.pay(newer.pidx);
    await until(async () => topups() === 2, 20_000);
    await until(
      async () =>
        (await ledgerOf(user.id)).purchases.every((purchase) => purchase.phase === "charged"),
      10_000,
    );
    expect(user.messages().filter((m) => m.text?.includes("Top-up successful"))).toHaveLength(2);
    expect(world.stack.logs().some((line) => line.includes("another purchase of the buyer"))).toBe(
      true,
    );
  }, 40_000);

  it("the method switched, then both offers paid: one top-up, the other payment owed back and told", async () => {
    const user = await atConfirm();
    const { link, pidx } = await khaltiLink(user);
    const { uuid } = await esewaPosted(user);
    await until(() => buttonsOf(user, shown(user, link)).length === 0, 5_000);
    // The Khalti page left open is paid: it pays for the purchase, which now names it again.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    expect(await payKhaltiPage(pidx)).toContain("Payment received");
    expect((await receipt).text).toContain("with Khalti");
    // The eSewa form posted before is paid too: found by the watch, owed back, the buyer told.
    const owed = user.waitForText("will be refunded", { timeoutMs: 10_000 });
    const success = await payEsewaPage(uuid);
    expect(success).not.toMatch(NOTHING_CHARGED);
    expect(success).toMatch(/Payment received|refunded/);
    await owed;
    const failure = `${world.base}/pay/esewa/failure/${uuid}`;
    await until(
      async () => (await (await fetch(failure)).text()).includes("it will be refunded"),
      3_000,
    );
    expect(await (await fetch(failure)).text()).not.toMatch(NOTHING_CHARGED);
    expect(topups()).toBe(1);
    const ledger = await ledgerOf(user.id);
    expect(ledger.purchases.map((p) => p.phase)).toEqual(["charged"]);
    expect(ledger.payments).toEqual([
      expect.objectContaining({ method: "khalti", applied: true, refund: "none" }),
      expect.objectContaining({ method: "esewa", applied: false, refund: "due" }),
    ]);
    const admin = world.stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const listed = await expectReply(admin, () => admin.sendText("/refunds"), "Refunds due");
    expect(listed.text).toContain(world.esewa.payment(uuid)?.refId ?? "?");
  });
});

describe("Khalti's order id", () => {
  it("is new for every initiation: Khalti, then eSewa, then Khalti again sends two order ids of the one purchase", async () => {
    const user = await atConfirm();
    const first = await khaltiLink(user);
    await esewaPosted(user);
    // The confirm screen offers Khalti again once eSewa is the chosen method.
    await until(
      () =>
        user
          .messages()
          .some((message) =>
            buttonsOf(user, message).some((label) => /Pay with Khalti/.test(label)),
          ),
      5_000,
    );
    const second = await khaltiLink(user);
    expect(second.pidx).not.toBe(first.pidx);
    const [purchase] = (await ledgerOf(user.id)).purchases;
    const orderOf = (pidx: string) => khalti.payment(pidx)?.purchaseOrderId ?? "";
    expect(orderOf(first.pidx)).toMatch(new RegExp(`^${purchase?.id}-[0-9a-f]{8}$`));
    expect(orderOf(second.pidx)).toMatch(new RegExp(`^${purchase?.id}-[0-9a-f]{8}$`));
    expect(orderOf(second.pidx)).not.toBe(orderOf(first.pidx));
    // As Khalti received them, each within its rules.
    const sent = khalti.calls
      .initiated()
      .map((body) => (body as { purchase_order_id?: string }).purchase_order_id ?? "")
      .filter((id) => id.startsWith(`${purchase?.id}-`));
    expect(sent).toEqual([orderOf(first.pidx), orderOf(second.pidx)]);
    for (const id of sent) expect(id).toMatch(/^[A-Za-z0-9-]{1,49}$/);
  });
});

describe("a payment made after the window", () => {
  let late: KhaltiGateways;
  beforeAll(async () => {
    late = await startKhaltiGateways("late_payments_window", SECRET, {
      PAYMENT_WINDOW_SECONDS: "2",
      RETURN_PAGE_LOOKUP_MS: "300",
    });
  });
  afterAll(() => late?.stop());

  it("the window over, the link still open is paid: topped up once, the buyer told it came late", async () => {
    const { user, pidx } = await late.withLink(++nextUser);
    await user.waitForText("not paid in time", { timeoutMs: 10_000 });
    expect(late.khalti.payment(pidx)?.status).toBe("Initiated");
    const notice = user.waitForText("arrived after the purchase had ended", { timeoutMs: 8_000 });
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    const paid = await fetch(`${late.khalti.url}/pay/${pidx}/confirm`, {
      method: "POST",
      redirect: "manual",
    });
    const page = await (await fetch(paid.headers.get("location") ?? "")).text();
    expect(page).toContain("Payment received");
    expect(page).not.toMatch(NOTHING_CHARGED);
    await notice;
    await receipt;
    expect(late.stack.sandbox.topups).toHaveLength(1);
  });

  it("the link expired at Khalti and never paid: closed at one last look, nothing charged", async () => {
    const before = late.stack.sandbox.topups.length;
    const { user, pidx } = await late.withLink(++nextUser);
    await user.waitForText("not paid in time", { timeoutMs: 10_000 });
    late.khalti.expire(pidx);
    const client = new pg.Client({ connectionString: late.stack.env.DATABASE_URL });
    await client.connect();
    try {
      await until(async () => {
        const { rows } = await client.query(
          "SELECT closed_at FROM payment_offers WHERE handle = $1",
          [pidx],
        );
        return rows[0]?.closed_at !== null;
      }, 8_000);
    } finally {
      await client.end();
    }
    expect(late.stack.sandbox.topups).toHaveLength(before);
    expect(user.messages().some((m) => m.text?.includes("arrived after"))).toBe(false);
    const page = await fetch(`${late.base}/pay/khalti/return?pidx=${pidx}`);
    expect(await page.text()).toMatch(NOTHING_CHARGED);
  });
});

describe('"I have paid" after the bot\'s time to pay, the link still open at Khalti', () => {
  let open: KhaltiGateways;
  beforeAll(async () => {
    // Nothing but the buyer's tap looks the purchase up: the tap is what finds the window over.
    open = await startKhaltiGateways("late_payments_tap", SECRET, {
      PAYMENT_WINDOW_SECONDS: "1",
      PAYMENT_CHECK_SECONDS: "3600",
      RECONCILE_INTERVAL_SECONDS: "3600",
      RETURN_PAGE_LOOKUP_MS: "300",
    });
  });
  afterAll(() => open?.stop());

  it("is told the time is over and a payment still made is not lost, never 'nothing was charged'; then paid late", async () => {
    const { user, pidx } = await open.withLink(++nextUser);
    const link = user.messages().findLast((m) => m.text?.includes("with Khalti"));
    const started = Date.now();
    await until(() => Date.now() - started > 1_100, 3_000);
    const answer = user.waitForCallbackAnswer({ timeoutMs: 8_000 });
    user.press("✅ I have paid", { messageId: link?.message_id });
    const said = (await answer).text ?? "";
    expect(said).toMatch(/time to pay in the bot is over/);
    expect(said).toMatch(/not lost/);
    expect(said).not.toMatch(NOTHING_CHARGED);
    expect(open.khalti.payment(pidx)?.status).toBe("Initiated");
    // The return page asks Khalti, which still takes the link: not "nothing was charged".
    const before = await (await fetch(`${open.base}/pay/khalti/return?pidx=${pidx}`)).text();
    expect(before).not.toMatch(NOTHING_CHARGED);

    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    const paid = await fetch(`${open.khalti.url}/pay/${pidx}/confirm`, {
      method: "POST",
      redirect: "manual",
    });
    // The page asks Khalti at most every RETURN_PAGE_LOOKUP_MS: the answer before still stands.
    const back = paid.headers.get("location") ?? "";
    await until(async () => (await (await fetch(back)).text()).includes("Payment received"), 5_000);
    await receipt;
    expect(open.stack.sandbox.topups).toHaveLength(1);
  });
});

describe("a Khalti clock behind ours (KHALTI_EXPIRY_MARGIN_SECONDS)", () => {
  let skewed: KhaltiGateways;
  /** Khalti's clock runs a minute behind ours: its expires_at reads 30 s in our past. */
  const SKEW_MS = 60_000;
  beforeAll(async () => {
    skewed = await startKhaltiGateways(
      "late_payments_skew",
      SECRET,
      { PAYMENT_WINDOW_SECONDS: "2", RETURN_PAGE_LOOKUP_MS: "300" },
      { now: () => new Date(Date.now() - SKEW_MS), expiresInSeconds: 30 },
    );
  });
  afterAll(() => skewed?.stop());

  it("a link past its expires_at by our clock, still payable at Khalti, is watched and its payment found", async () => {
    const { user, pidx } = await skewed.withLink(++nextUser);
    await user.waitForText("not paid in time", { timeoutMs: 10_000 });
    // Watched past Khalti's expires_at as our clock reads it: looked up, and not closed.
    expect(skewed.khalti.payment(pidx)?.expiresAt.getTime()).toBeLessThan(Date.now());
    const looked = skewed.khalti.calls.lookups(pidx);
    // One watched look after its expires_at (then put off: a quarter of the time since).
    await until(() => skewed.khalti.calls.lookups(pidx) >= looked + 1, 8_000);
    const client = new pg.Client({ connectionString: skewed.stack.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT closed_at, payable_until FROM payment_offers WHERE handle = $1",
        [pidx],
      );
      expect(rows[0]?.closed_at).toBeNull();
      expect(new Date(rows[0]?.payable_until).getTime()).toBeLessThan(Date.now());
    } finally {
      await client.end();
    }
    // Khalti still takes it (by its own clock); the bot finds it and tops up, once.
    expect(skewed.khalti.payment(pidx)?.status).toBe("Initiated");
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    skewed.khalti.pay(pidx);
    await receipt;
    expect(skewed.stack.sandbox.topups).toHaveLength(1);
  });
});

describe("a watched Khalti link's last look", () => {
  let last: KhaltiGateways;
  beforeAll(async () => {
    // Khalti's expires_at already in our past, no margin: every look after the purchase ends is
    // the last one.
    last = await startKhaltiGateways(
      "late_payments_last_look",
      SECRET,
      { PAYMENT_WINDOW_SECONDS: "2", KHALTI_EXPIRY_MARGIN_SECONDS: "0" },
      { now: () => new Date(Date.now() - 60_000), expiresInSeconds: 30 },
    );
  });
  afterAll(() => last?.stop());

  it("one 'not found' from a gateway's JSON 404 does not close it: the payment is found at the next look", async () => {
    const { user, pidx } = await last.withLink(++nextUser);
    await user.waitForText("not paid in time", { timeoutMs: 10_000 });
    let gatewayAnswers = 0;
    last.khaltiGateway.handle = async (request, forward) => {
      if (request.path !== "/api/v2/epayment/lookup/" || gatewayAnswers > 0) return forward();
      gatewayAnswers++;
      // What a gateway in front of Khalti answers for a route it does not know.
      return { status: 404, contentType: "application/json", text: '{"detail":"Not found."}' };
    };
    await until(() => gatewayAnswers === 1, 8_000);
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 10_000 });
    last.khalti.pay(pidx);
    await receipt;
    expect(last.stack.sandbox.topups).toHaveLength(1);
  });
});
