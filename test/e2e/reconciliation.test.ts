// The daily reconciliation end to end (issue 32): the real bot, the emulator, the provider and
// Khalti sandboxes, Redis and PostgreSQL. Every finding comes from a real mismatch: a payment
// made in the Khalti sandbox that the bot never learnt of, a refund made there by hand, a top-up
// the provider sandbox really executed for a ledger row that says otherwise, the provider down
// for part of a run. Each case has a day of its own (UTC), the clean one the earliest, so that
// findings do not mix; today's are the Khalti journeys'.
import type { Message } from "grammy/types";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerTables } from "../../src/adapters/ledger/schema.js";
import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import { CUSTOMER_SEEDS } from "../../tools/sandbox/data.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "../support/chat.js";
import { parseCsv } from "../support/csv.js";
import { insertRows, ledgerRow } from "../support/ledger-rows.js";
import { freePort } from "../support/ports.js";
import { PROVIDER_TOKEN, type Stack, startStack } from "../support/stack.js";
import { until } from "../support/wait.js";

const SECRET = "reconcile-e2e-secret";
const ADMIN = 99_330;
const STRANGER = 7_330;
const NOT_ALLOWED = "Sorry, this command is for administrators only.";
/** One day per case, before today, the clean one first: no earlier finding is open for it. */
const CLEAN = "2026-09-01";
const UNEXPECTED = "2026-09-02";
const AMOUNT = "2026-09-03";
const DOWN = "2026-09-04";
const LATER = "2026-09-05";
const noonOf = (day: string) => new Date(`${day}T12:00:00Z`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let stack: Stack;
let khalti: KhaltiSandbox;
let ledger: Kysely<LedgerTables>;
let admin: ChatUser;
let nextBuyer = 7_340;
/** The day of the Khalti journeys (today), once they ran. */
let khaltiDay = "";

interface Report {
  text: string;
  /** The CSV's bytes as sent, when one came. */
  csv: Buffer | undefined;
  csvName: string | undefined;
  rows: Record<string, string>[];
  /** Every message the admin got from /reconcile on, its own included. */
  messages: Message[];
}

const isReport = (days: string) => (m: Message) =>
  (m.text ?? "").startsWith(`✅ ${days}: every purchase matched`) ||
  (m.text ?? "").startsWith(`🔎 Reconciliation of ${days}:`);

/** /reconcile as the admin gets it: "Reconciling …" at once, then the report and its CSV. */
async function reconcile(days: string): Promise<Report> {
  const before = admin.messages().length;
  const fresh = () => admin.messages().slice(before);
  const started = admin.waitForText(`Reconciling ${days}`, { timeoutMs: 5_000 });
  admin.sendText(`/reconcile ${days}`);
  await started;
  await until(() => fresh().some(isReport(days)), 15_000);
  const report = fresh().find(isReport(days)) as Message;
  const text = report.text ?? "";
  // The file follows the message whenever some finding is open (the hint says so).
  if (text.includes("/resolve ID NOTE")) {
    await until(() => fresh().some((m) => m.document !== undefined), 10_000);
  } else {
    await sleep(500);
  }
  const document = fresh().find((m) => m.document !== undefined)?.document;
  const csv = document && stack.emulator.file(document.file_id)?.upload?.bytes;
  return {
    text,
    csv,
    csvName: document?.file_name,
    rows: csv ? parseCsv(csv.toString("utf8")) : [],
    messages: fresh(),
  };
}

const runs = async () =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM reconciliation_runs`.execute(ledger))
    .rows[0]?.n;

/** Every finding the ledger holds of a purchase, open or resolved, oldest first. */
async function findingsOf(purchaseId: string) {
  const { rows } = await sql<{ id: string; kind: string; status: string }>`
    SELECT id::text AS id, kind, status FROM reconciliation_findings
     WHERE purchase_id = ${purchaseId} ORDER BY id`.execute(ledger);
  return rows;
}

/** One of the provider sandbox's operations, called as the bot would. */
async function provider(operation: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.sandbox.baseUrl()}/api/third-party/v1.0.1/${operation}`, {
    method: "POST",
    headers: { authorization: `Bearer ${PROVIDER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

const GOLD = { cuid: "1000001", service: "tv", reqId: "8000000011" };

/** A checkout token for 1000001's TV that the provider sandbox really executed (Gold, 700). */
async function executedCheckout(): Promise<string> {
  const offer = await provider("get-subscription-package", GOLD);
  const checkoutId = String((offer.body as { checkoutId: string }).checkoutId);
  const topup = await provider("subscription-package-topup", {
    ...GOLD,
    checkoutId,
    bouquetId: "TV-GOLD-M",
    amt: 700,
  });
  expect(topup.success).toBe(true);
  return checkoutId;
}

/**
 * A purchase of `day` in the ledger that took `checkoutId` (agent mode: nobody paid in the bot),
 * as the top-up writes it: the purchase and its checkout token.
 */
async function purchaseWithCheckout(
  day: string,
  checkoutId: string,
  overrides: Parameters<typeof ledgerRow>[0],
): Promise<string> {
  const row = ledgerRow({
    checkout_id: checkoutId,
    checkout_issued_at: noonOf(day),
    txn_id: null,
    txn_amount: null,
    ...overrides,
  });
  await insertRows(ledger, [row]);
  await ledger
    .insertInto("purchase_checkouts")
    .values({ checkout_id: checkoutId, purchase_id: row.id, taken_at: noonOf(day) })
    .execute();
  return row.id;
}

/** A new buyer with a Khalti link for 1000001's Gold renewal (NPR 700) in front of them. */
async function withLink(): Promise<{ user: ChatUser; link: Message; pidx: string }> {
  const user = stack.emulator.user({ id: ++nextBuyer, first_name: "Kh", language_code: "en" });
  await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
  await expectReply(user, () => user.press(/Renew/), "Please confirm");
  const link = await expectReply(user, () => user.press(/Pay NPR/), "with Khalti");
  const pidx = khalti.payments().at(-1)?.pidx ?? "";
  return { user, link, pidx };
}

async function purchaseOfPidx(pidx: string): Promise<{ id: string; phase: string }> {
  const { rows } = await sql<{ id: string; phase: string }>`
    SELECT p.id, p.phase FROM purchases p JOIN payment_offers o ON o.purchase_id = p.id
     WHERE o.method = 'khalti' AND o.handle = ${pidx}`.execute(ledger);
  return rows[0] ?? { id: "?", phase: "?" };
}

/** Nothing in a report (message or file) may hold a test customer's phone number. */
function expectNoPhoneNumber(report: Report): void {
  const everything = `${report.text}\n${report.csv?.toString("utf8") ?? ""}`;
  for (const seed of CUSTOMER_SEEDS) expect(everything).not.toContain(seed.mobile);
  expect(everything).not.toMatch(/98\d{8}/);
}

beforeAll(async () => {
  khalti = await createKhaltiSandbox({ secretKey: SECRET });
  const port = await freePort();
  stack = await startStack("reconciliation", {
    PAYMENT_MODE: "",
    PAYMENT_METHODS: "khalti",
    KHALTI_SECRET_KEY: SECRET,
    KHALTI_BASE_URL: khalti.url,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    HTTP_PORT: String(port),
    HTTP_HOST: "127.0.0.1",
    // The bot looks a link up only when "I have paid" is pressed: a payment it never learns of.
    PAYMENT_CHECK_SECONDS: "3600",
    ADMIN_USER_IDS: String(ADMIN),
    RECONCILE_RATE_PER_SECOND: "50",
    RECONCILE_LEASE_SECONDS: "5",
  });
  admin = stack.emulator.user({ id: ADMIN, first_name: "Admin", language_code: "en" });
  const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 2 });
  ledger = new Kysely<LedgerTables>({ dialect: new PostgresDialect({ pool }) });
}, 60_000);
afterAll(async () => {
  await ledger?.destroy();
  await stack?.stop();
  await khalti?.close();
});

describe("/reconcile and /resolve", () => {
  it("answers bad input and strangers with one message, and starts no run", async () => {
    const stranger = stack.emulator.user({ id: STRANGER, first_name: "Nosy", language_code: "en" });
    const cases: [ChatUser, string, string][] = [
      [admin, "/reconcile 2026-13-01", "Not started: give a day as YYYY-MM-DD"],
      [admin, "/reconcile abc", "Not started: give a day as YYYY-MM-DD"],
      [admin, "/reconcile 2026-11-20..2026-11-01", "Not started: the range ends before it starts."],
      [admin, "/reconcile 2026-01-01..2026-03-01", "Not started: a range covers at most 31 days."],
      [admin, "/resolve 12", "Use /resolve ID NOTE"],
      [admin, "/resolve abc refunded", "Use /resolve ID NOTE"],
      [admin, "/resolve 999999 refunded by hand", "No open finding #999999."],
      [stranger, "/reconcile", NOT_ALLOWED],
      [stranger, `/reconcile ${CLEAN}`, NOT_ALLOWED],
      [stranger, "/resolve 1 done", NOT_ALLOWED],
    ];
    for (const [user, command, answer] of cases) {
      const before = user.messages().length;
      const reply = await expectReply(user, () => user.sendText(command), answer);
      await sleep(300);
      // One answer, and nothing after it.
      expect(user.messages().slice(before)).toEqual([reply]);
    }
    expect(admin.messages().at(-1)?.text).toBe("No open finding #999999.");
    expect(await runs()).toBe(0);
  });

  it("a clean day is one line, with no file", async () => {
    const checkoutId = await executedCheckout();
    await purchaseWithCheckout(CLEAN, checkoutId, {
      created_at: noonOf(CLEAN),
      phase: "charged",
      txn_id: "TXN-CLEAN",
      txn_amount: "700",
    });
    const report = await reconcile(CLEAN);
    expect(report.text).toBe(`✅ ${CLEAN}: every purchase matched (1 purchase).`);
    expect(report.csv).toBeUndefined();
    expect(await runs()).toBe(1);
  });

  it("finds a top-up the provider executed for a purchase the ledger calls not charged", async () => {
    const checkoutId = await executedCheckout();
    const purchase = await purchaseWithCheckout(UNEXPECTED, checkoutId, {
      created_at: noonOf(UNEXPECTED),
      phase: "not-charged",
      reason: "verified",
    });
    const report = await reconcile(UNEXPECTED);
    expect(report.text.split("\n")).toEqual(
      expect.arrayContaining([
        `🔎 Reconciliation of ${UNEXPECTED}: 1 purchase, 1 finding open.`,
        "• Executed at the provider, not charged in the ledger: 1",
      ]),
    );
    expect(report.csvName).toBe(`reconciliation-${UNEXPECTED}.csv`);
    expect(report.rows).toEqual([
      expect.objectContaining({
        day: UNEXPECTED,
        kind: "provider-charged-unexpectedly",
        purchase_id: purchase,
        outside_ids: `provider:${checkoutId}`,
        // The provider's transaction beside the checkout token.
        provider_txns: expect.stringMatching(new RegExp(`^${checkoutId}=\\S+$`)),
        ledger_amount: "700.00",
        outside_amount: "700.00",
        next_step: "mark the purchase charged or recover the top-up",
      }),
    ]);
  });

  it("finds the provider's amt differing from the price the ledger holds", async () => {
    const checkoutId = await executedCheckout();
    const purchase = await purchaseWithCheckout(AMOUNT, checkoutId, {
      created_at: noonOf(AMOUNT),
      phase: "charged",
      price: "650.50",
      txn_id: "TXN-AMOUNT",
      txn_amount: "650.50",
    });
    const report = await reconcile(AMOUNT);
    expect(report.text).toContain(`🔎 Reconciliation of ${AMOUNT}: 1 purchase, 1 finding open.`);
    expect(report.text).toContain("• Amounts differ: 1");
    const mine = report.rows.filter((row) => row.day === AMOUNT);
    expect(mine).toEqual([
      expect.objectContaining({
        kind: "amount-differs",
        purchase_id: purchase,
        outside_ids: `provider:${checkoutId}`,
        ledger_amount: "650.50",
        outside_amount: "700.00",
      }),
    ]);
    // The earlier day's finding is still open: listed, and in the file first.
    expect(report.text).toContain("Still open from earlier days: 1");
    expect(report.rows[0]?.day).toBe(UNEXPECTED);
  });

  it("/resolve closes a finding: no later report lists it", async () => {
    const [open] = (
      await sql<{ id: string }>`
      SELECT id::text AS id FROM reconciliation_findings
       WHERE day = ${UNEXPECTED}::date AND status = 'open'`.execute(ledger)
    ).rows;
    const id = open?.id ?? "?";
    await expectReply(
      admin,
      () => admin.sendText(`/resolve ${id} recovered the top-up at the provider`),
      `Finding #${id} is resolved.`,
    );
    const stored = await sql<{ status: string; note: string; resolved_by: string }>`
      SELECT status, note, resolved_by::text AS resolved_by FROM reconciliation_findings
       WHERE id = ${id}::bigint`.execute(ledger);
    expect(stored.rows).toEqual([
      {
        status: "resolved",
        note: "recovered the top-up at the provider",
        resolved_by: String(ADMIN),
      },
    ]);
    // Resolved once: a second /resolve finds nothing open.
    await expectReply(
      admin,
      () => admin.sendText(`/resolve ${id} again`),
      `No open finding #${id}.`,
    );

    // A later day's report lists what is still open from earlier days: not the resolved one.
    const report = await reconcile(LATER);
    expect(report.text.split("\n")[0]).toBe(`✅ ${LATER}: every purchase matched (0 purchases).`);
    expect(report.text).toContain("Still open from earlier days: 1");
    expect(report.text).not.toContain(`#${id} `);
    expect(report.rows.map((row) => row.finding_id)).not.toContain(id);
    expect(report.rows.map((row) => row.day)).toEqual([AMOUNT]);

    // The same day run again finds the same mismatch: the admin's resolution stands.
    const again = await reconcile(UNEXPECTED);
    expect(again.text.split("\n")[0]).toBe(
      `✅ ${UNEXPECTED}: every purchase matched (1 purchase).`,
    );
    const rows = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM reconciliation_findings
       WHERE day = ${UNEXPECTED}::date AND status = 'open'`.execute(ledger);
    expect(rows.rows[0]?.n).toBe(0);
  });

  it("a provider down for part of a run: those purchases are not asked, then asked again", async () => {
    const firstCheckout = await executedCheckout();
    const secondCheckout = await executedCheckout();
    const first = await purchaseWithCheckout(DOWN, firstCheckout, {
      id: "rc-down-a",
      created_at: noonOf(DOWN),
      phase: "charged",
      txn_id: "TXN-DOWN-A",
      txn_amount: "700",
    });
    const second = await purchaseWithCheckout(DOWN, secondCheckout, {
      id: "rc-down-b",
      created_at: noonOf(DOWN),
      phase: "charged",
      txn_id: "TXN-DOWN-B",
      txn_amount: "700",
    });
    // Purchases are asked in the order of their ids. Each txn-status is tried three times, paced,
    // and nothing more (the reconciliation's client makes no retries of its own, whatever
    // PROVIDER_READ_RETRIES): three answers of 500 cover the first purchase.
    stack.sandbox.setFault("txn-status", { kind: "http-500", times: 3 });
    const asked = stack.sandbox.requests.length;
    const down = await reconcile(DOWN);
    const statusOf = (checkoutId: string) =>
      stack.sandbox.requests
        .slice(asked)
        .filter(
          (r) =>
            r.operation === "txn-status" &&
            (r.body as { checkoutId?: string }).checkoutId === checkoutId,
        ).length;
    expect(statusOf(firstCheckout)).toBe(3);
    expect(statusOf(secondCheckout)).toBe(1);
    // "Reconciling …", the report and its file: the provider's outage alerted nobody.
    expect(down.messages).toHaveLength(3);
    expect(down.text).toContain(`🔎 Reconciliation of ${DOWN}: 2 purchases, 1 finding open.`);
    expect(down.text).toContain("• Could not be asked: 1");
    expect(down.rows.filter((row) => row.day === DOWN)).toEqual([
      expect.objectContaining({
        kind: "not-asked",
        purchase_id: first,
        outside_ids: `provider:${firstCheckout}`,
        provider_txns: `${firstCheckout}=? ledger=TXN-DOWN-A`,
        next_step: "run the reconciliation of this day again",
      }),
    ]);
    expect((await findingsOf(second)).length).toBe(0);

    // The provider is back: the same day again closes it.
    stack.sandbox.clearFaults();
    const again = await reconcile(DOWN);
    expect(again.text.split("\n")[0]).toBe(`✅ ${DOWN}: every purchase matched (2 purchases).`);
    expect(again.rows.filter((row) => row.day === DOWN)).toEqual([]);
    expect(await findingsOf(first)).toEqual([
      expect.objectContaining({ kind: "not-asked", status: "resolved" }),
    ]);
  });

  it("settles Khalti payments the ledger never recorded (one for the wrong amount), and finds a refund made at Khalti by hand", async () => {
    // Paid at Khalti; the bot is never told (no "I have paid", no check due for an hour).
    const unseen = await withLink();
    khalti.pay(unseen.pidx);
    // Paid 500 of the 700 asked, unseen too.
    const short = await withLink();
    khalti.pay(short.pidx, { amount: 50_000 });
    // Paid and topped up through the bot, then refunded by hand at Khalti.
    const refunded = await withLink();
    khalti.pay(refunded.pidx);
    await expectReply(
      refunded.user,
      () => refunded.user.press("✅ I have paid", { messageId: refunded.link.message_id }),
      "Top-up successful",
      10_000,
    );
    const transaction = khalti.payment(refunded.pidx)?.transactionId ?? "?";
    const byHand = await fetch(`${khalti.url}/api/merchant-transaction/${transaction}/refund/`, {
      method: "POST",
      headers: { authorization: `Key ${SECRET}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(byHand.status).toBe(200);
    expect(khalti.payment(refunded.pidx)?.refunded).toBe(true);

    const unseenPurchase = await purchaseOfPidx(unseen.pidx);
    const shortPurchase = await purchaseOfPidx(short.pidx);
    const refundedPurchase = await purchaseOfPidx(refunded.pidx);
    expect(unseenPurchase.phase).toBe("awaiting-payment");
    expect(refundedPurchase.phase).toBe("charged");

    // The day the links were offered (UTC), as the reconciliation finds the purchases.
    const offered = await sql<{ day: string }>`
      SELECT DISTINCT to_char(offered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day
        FROM payment_offers WHERE handle IN (${unseen.pidx}, ${short.pidx}, ${refunded.pidx})`.execute(
      ledger,
    );
    expect(offered.rows).toHaveLength(1);
    khaltiDay = offered.rows[0]?.day ?? "?";
    const day = khaltiDay;
    const receipt = unseen.user.waitForText("Top-up successful", { timeoutMs: 15_000 });
    const owed = short.user.waitForText("will be refunded", { timeoutMs: 15_000 });
    const report = await reconcile(day);
    const lines = report.text.split("\n");
    // The two payments neither topped up nor refunded are settled by the payment path itself.
    expect(lines[0]).toBe(`🔎 Reconciliation of ${day}: 3 purchases, 2 findings open.`);
    expect(lines).toEqual(
      expect.arrayContaining([
        "• Amounts differ: 1",
        "• Refunded at the payment system, not in the ledger: 1",
        "✔️ Settled by the bot: 2 payments it had missed, now recorded, with a top-up started or a refund owed.",
      ]),
    );
    expect(lines.join("\n")).not.toContain("Paid, neither topped up nor refunded");
    const today = report.rows.filter((row) => row.day === day);
    const of = (purchase: string) =>
      today
        .filter((row) => row.purchase_id === purchase)
        .map(({ kind, outside_ids, ledger_amount, outside_amount }) => ({
          kind,
          outside_ids,
          ledger_amount,
          outside_amount,
        }));
    expect(of(unseenPurchase.id)).toEqual([]);
    expect(of(shortPurchase.id)).toEqual([
      {
        kind: "amount-differs",
        outside_ids: `khalti:${short.pidx}`,
        ledger_amount: "700.00",
        outside_amount: "500.00",
      },
    ]);
    expect(of(refundedPurchase.id)).toEqual([
      {
        kind: "refunded-outside-only",
        outside_ids: `khalti:${refunded.pidx}`,
        ledger_amount: "",
        outside_amount: "700.00",
      },
    ]);
    // Each finding names the provider's transaction beside each checkout (none taken yet here:
    // the top-ups come after the lookups; the charged one's is its own).
    const refundedRow = today.find((row) => row.purchase_id === refundedPurchase.id);
    expect(refundedRow?.provider_txns).toMatch(/^\S+=\S+$/);
    expect(refundedRow?.provider_txns).not.toMatch(/=(none|\?)$/);
    // Settled and recorded as such, with a note: the unseen payment topped up, the short one
    // owed back (refunded through Khalti), each buyer told.
    expect((await receipt).text).toContain("with Khalti");
    await owed;
    await until(async () => (await purchaseOfPidx(unseen.pidx)).phase === "charged", 10_000);
    await until(() => khalti.payment(short.pidx)?.refunded === true, 10_000);
    expect((await purchaseOfPidx(short.pidx)).phase).toBe("unpaid");
    const settled = await sql<{ purchase_id: string; status: string; note: string }>`
      SELECT purchase_id, status, note FROM reconciliation_findings
       WHERE kind = 'paid-not-settled' ORDER BY purchase_id`.execute(ledger);
    expect(settled.rows).toEqual(
      [
        {
          purchase_id: unseenPurchase.id,
          status: "settled",
          note: expect.stringMatching(
            /payment recorded; it pays for its purchase, whose top-up has started/,
          ),
        },
        {
          purchase_id: shortPurchase.id,
          status: "settled",
          note: expect.stringMatching(/payment recorded; it pays for nothing, owed back$/),
        },
      ].sort((a, b) => a.purchase_id.localeCompare(b.purchase_id)),
    );
  });

  it("the file opens in a spreadsheet: UTF-8 with a BOM, a header row, exact amounts, no phone number", async () => {
    // Today again: its findings are not opened twice, and the earlier day's come first.
    const day = khaltiDay;
    const report = await reconcile(day);
    expect(report.text.split("\n")[0]).toBe(
      `🔎 Reconciliation of ${day}: 3 purchases, 2 findings open.`,
    );
    expect(report.rows.map((row) => row.day)).toEqual([AMOUNT, day, day]);
    const bytes = report.csv ?? Buffer.alloc(0);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString("utf8");
    expect(Buffer.from(text, "utf8").equals(bytes)).toBe(true);
    expect(text.slice(1).split("\r\n")[0]).toBe(
      "finding_id,day,kind,purchase_id,outside_ids,provider_txns,ledger_amount,outside_amount,next_step",
    );
    expect(report.rows.find((row) => row.kind === "amount-differs")).toEqual(
      expect.objectContaining({ ledger_amount: "650.50", outside_amount: "700.00" }),
    );
    for (const row of report.rows) {
      for (const amount of [row.ledger_amount, row.outside_amount]) {
        expect(amount).toMatch(/^(\d+\.\d{2})?$/);
      }
    }
    expectNoPhoneNumber(report);
  });
});
