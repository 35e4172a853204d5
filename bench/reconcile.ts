// The daily reconciliation (issue 32) over a day of 10,000 purchases, against the provider
// sandbox and the Khalti sandbox over real HTTP, on a PostgreSQL ledger: calls a second achieved
// against the configured rate, wall time, peak memory, and whether memory grows with the day.
// Run with `npm run bench:reconcile`; results in bench/RECONCILE.md.
//
// The parent starts a PostgreSQL server of its own and both sandboxes, and makes three days of
// purchases: each top-up executed at the provider sandbox (a checkout token taken, then used),
// each Khalti payment made at the Khalti sandbox, then the ledger's rows written in bulk. Each
// run is the bot's own classes (Reconciliations over LedgerDays, daySources, PacedAsker, the
// ProviderClient and KhaltiPayments' audit) in a child process of its own under bin/start's
// memory settings, so that its peak RSS is its own; the sandboxes stay in the parent.
import { execFile } from "node:child_process";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sql } from "kysely";
import { LedgerConnection } from "../src/adapters/ledger/connection.js";
import { ProviderBalanceStore } from "../src/adapters/ledger/provider-balance.js";
import { LedgerDays } from "../src/adapters/ledger/reconciliation-days.js";
import { ReconciliationStore } from "../src/adapters/ledger/reconciliation-store.js";
import { KhaltiPayments } from "../src/adapters/payments/khalti/khalti.js";
import { ProviderClient } from "../src/adapters/provider/client.js";
import { findingsCsv } from "../src/bot/features/reconcile/views.js";
import type { LedgerSide } from "../src/domain/daily-reconciliation.js";
import { PacedAsker } from "../src/domain/paced-asking.js";
import { type ReconciliationReport, Reconciliations } from "../src/domain/reconciliation-runs.js";
import { daySources, type PaymentAudit } from "../src/domain/reconciliation-sources.js";
import { createDatabase } from "../test/support/postgres.js";
import { startOwnPostgres } from "../test/support/postgres-server.js";
import { createKhaltiSandbox } from "../tools/khalti-sandbox/server.js";
import { createSandbox } from "../tools/sandbox/server.js";

const ZONE = "Asia/Kathmandu";
const PROVIDER_TOKEN = "bench-token";
const KHALTI_KEY = "bench-khalti-key";
/** As src/wiring/reconciliation.ts: tries of each call before "not asked". */
const ASK_ATTEMPTS = 3;
/** RECONCILE_RATE_PER_SECOND's default, and the highest the configuration takes. */
const DEFAULT_RATE = 5;
const CONFIG_MAX_RATE = 100;
/** Beyond the configuration's highest (calls still 1 ms apart): what the code can do. */
const FAST_RATE = 1000;
/** The days made, and how many purchases each. */
const DAYS = { big: "2026-11-20", small: "2026-11-21", tiny: "2026-11-22" } as const;
/** A day on which the provider could not be asked at all: its findings, written directly. */
const UNASKED_DAY = "2026-11-23";
const UNASKED_FINDINGS = 17_000;
const SIZES = { big: 10_000, small: 1_000, tiny: 50 } as const;
/** Internet connections of the sandbox's test customers (21 bouquets in a listing). */
const CONNECTIONS = [
  { cuid: "1000003", id: "hari.gurung" },
  { cuid: "1000004", id: "gita.karki" },
  { cuid: "1000005", id: "bikash.rai" },
  { cuid: "1000010", id: "kiran.magar" },
] as const;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const MB = 1024 * 1024;

/**
 * What a purchase of the day is, by its number: 70 % paid with Khalti and charged, 20 % agent
 * mode charged, 5 % agent mode not charged (a checkout token taken, no top-up), 5 % a Khalti
 * link not paid (cancelled at Khalti), of which one in ten was paid at Khalti without the ledger
 * knowing: a real finding ("paid-not-settled").
 */
type Kind =
  | "khalti-charged"
  | "agent-charged"
  | "agent-declined"
  | "khalti-unpaid"
  | "khalti-unseen";
function kindOf(i: number): Kind {
  const slot = i % 20;
  if (slot < 14) return "khalti-charged";
  if (slot < 18) return "agent-charged";
  if (slot === 18) return "agent-declined";
  return i % 200 === 19 ? "khalti-unseen" : "khalti-unpaid";
}

interface Seeded {
  id: string;
  kind: Kind;
  at: Date;
  cuid: string;
  connection: string;
  bouquetCode: string;
  bouquetName: string;
  price: string;
  minor: number;
  checkoutId: string | null;
  txnId: string | null;
  pidx: string | null;
  khaltiTxn: string | null;
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, work: (item: T) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T);
      }
    }),
  );
  return results;
}

/** The day's purchases made at the sandboxes: top-ups executed, Khalti payments made. */
async function makeAtSandboxes(
  day: string,
  count: number,
  provider: ProviderClient,
  khalti: Awaited<ReturnType<typeof createKhaltiSandbox>>,
): Promise<Seeded[]> {
  const start = Date.parse(`${day}T00:00:00+05:45`);
  return inParallel(
    Array.from({ length: count }, (_, i) => i),
    16,
    async (i): Promise<Seeded> => {
      const kind = kindOf(i);
      const line = CONNECTIONS[i % CONNECTIONS.length] ?? CONNECTIONS[0];
      const offer = await provider.getPackages(line.cuid, { service: "internet", id: line.id });
      const bouquet = offer.bouquets[i % offer.bouquets.length];
      if (!bouquet) throw new Error("the sandbox offered no bouquet");
      const minor = Math.round(Number(bouquet.price) * 100);
      const id = `rc-${day}-${String(i).padStart(5, "0")}`;
      let checkoutId: string | null = null;
      let txnId: string | null = null;
      if (kind === "khalti-charged" || kind === "agent-charged" || kind === "agent-declined") {
        checkoutId = offer.checkout.id;
      }
      if (kind === "khalti-charged" || kind === "agent-charged") {
        const txn = await provider.topup({
          cuid: line.cuid,
          service: "internet",
          connectionId: line.id,
          checkoutId: offer.checkout.id,
          bouquetCode: bouquet.code,
          amount: bouquet.price,
        });
        txnId = txn.txnId;
      }
      let pidx: string | null = null;
      let khaltiTxn: string | null = null;
      if (kind.startsWith("khalti")) {
        pidx = await initiate(khalti.url, id, minor);
        if (kind === "khalti-unpaid") khalti.cancel(pidx);
        else khaltiTxn = khalti.pay(pidx).transactionId;
      }
      return {
        id,
        kind,
        at: new Date(start + Math.floor((i * 86_400_000) / count)),
        cuid: line.cuid,
        connection: line.id,
        bouquetCode: bouquet.code,
        bouquetName: bouquet.name,
        price: bouquet.price,
        minor,
        checkoutId,
        txnId,
        pidx,
        khaltiTxn,
      };
    },
  );
}

/** A Khalti payment link, as the bot's KhaltiPayments.offer asks for it: its pidx. */
async function initiate(url: string, purchaseId: string, amount: number): Promise<string> {
  const response = await fetch(`${url}/api/v2/epayment/initiate/`, {
    method: "POST",
    headers: { authorization: `Key ${KHALTI_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      return_url: "http://127.0.0.1:1/return",
      website_url: "http://127.0.0.1:1/",
      amount,
      purchase_order_id: purchaseId,
      purchase_order_name: "Bench bouquet",
    }),
  });
  const body = (await response.json()) as { pidx?: string };
  if (!body.pidx) throw new Error(`initiate answered ${response.status}`);
  return body.pidx;
}

/** The ledger's rows of those purchases, in three statements over arrays. */
async function writeLedger(ledger: LedgerConnection, rows: Seeded[]): Promise<void> {
  const col = <T>(pick: (row: Seeded) => T) => rows.map(pick);
  const paid = (row: Seeded) => row.kind === "khalti-charged";
  await sql`
    INSERT INTO purchases (id, buyer, language, customer_id, customer_name, service,
      connection_id, bouquet_code, bouquet_name, price, attempt, checkout_id, checkout_issued_at,
      reference, phase, told, reason, txn_id, txn_amount, from_reminder, created_at, updated_at,
      payment_method, payment_currency, payment_minor, payment_expires_at, payment_offer,
      payment_charge_id, payment_provider_charge_id, paid_at)
    SELECT id, 100000 + n, 'en', cuid, 'Bench buyer', 'internet', conn, code, name, price, 1,
      checkout, CASE WHEN checkout IS NOT NULL THEN at END, left(md5(id), 24), phase,
      phase, CASE phase WHEN 'not-charged' THEN 'declined' WHEN 'unpaid' THEN 'cancelled' END,
      txn, CASE WHEN txn IS NOT NULL THEN price END, false, at, at,
      CASE WHEN pidx IS NOT NULL THEN 'khalti' END, CASE WHEN pidx IS NOT NULL THEN 'NPR' END,
      CASE WHEN pidx IS NOT NULL THEN minor END,
      CASE WHEN pidx IS NOT NULL THEN at + interval '30 minutes' END, pidx,
      CASE WHEN paid THEN pidx END, CASE WHEN paid THEN ktxn END, CASE WHEN paid THEN at END
    FROM unnest(${col((r) => r.id)}::text[], ${col((r) => r.cuid)}::text[],
      ${col((r) => r.connection)}::text[], ${col((r) => r.bouquetCode)}::text[],
      ${col((r) => r.bouquetName)}::text[], ${col((r) => r.price)}::numeric[],
      ${col((r) => r.checkoutId)}::text[], ${col((r) => r.at)}::timestamptz[],
      ${col((r) => (r.txnId ? "charged" : r.checkoutId ? "not-charged" : "unpaid"))}::text[],
      ${col((r) => r.txnId)}::text[], ${col((r) => r.pidx)}::text[],
      ${col((r) => r.minor)}::bigint[], ${col(paid)}::boolean[], ${col((r) => r.khaltiTxn)}::text[])
      WITH ORDINALITY AS s (id, cuid, conn, code, name, price, checkout, at, phase, txn, pidx,
        minor, paid, ktxn, n)`.execute(ledger.db);
  // The database records each offer itself, at the time of the write: the offer's own time.
  await sql`
    UPDATE payment_offers o SET offered_at = p.created_at FROM purchases p
     WHERE o.purchase_id = p.id AND p.id = ANY (${col((r) => r.id)}::text[])`.execute(ledger.db);
  await sql`
    INSERT INTO payments (purchase_id, buyer, method, currency, minor, charge_id,
      provider_charge_id, received_at, applied)
    SELECT id, buyer, 'khalti', 'NPR', payment_minor, payment_charge_id,
      payment_provider_charge_id, paid_at, true
    FROM purchases WHERE payment_charge_id IS NOT NULL
      AND id = ANY (${col((r) => r.id)}::text[])`.execute(ledger.db);
  const tokens = rows.filter((r) => r.checkoutId !== null);
  await sql`
    INSERT INTO purchase_checkouts (checkout_id, purchase_id, taken_at)
    SELECT * FROM unnest(${tokens.map((r) => r.checkoutId)}::text[],
      ${tokens.map((r) => r.id)}::text[], ${tokens.map((r) => r.at)}::timestamptz[])`.execute(
    ledger.db,
  );
}

interface Measured {
  purchases: number;
  /** Calls made by the run (retries included), and the time they took, answers included. */
  calls: number;
  callMs: number;
  /** Time the pacing made the run wait. */
  pacedMs: number;
  pages: number;
  pageMs: number;
  /** Heap used after a full GC at each page boundary: what the run keeps between pages. */
  liveFirstMb: number;
  liveMaxMb: number;
  writeMs: number;
  wallMs: number;
  findings: Record<string, number>;
  baseRssMb: number;
  peakRssMb: number;
  baseHeapMb: number;
  peakHeapMb: number;
}

/** In the child: one run of `day` through the bot's classes, measured. */
async function reconcileInChild(
  url: string,
  day: string,
  rate: number,
  providerBase: string,
  khaltiUrl: string,
): Promise<Measured> {
  const ledger = new LedgerConnection(
    { kind: "postgres", url, poolSize: 4, statementTimeoutMs: 60_000 },
    { log: silent },
  );
  await ledger.open();
  const provider = new ProviderClient({
    baseUrl: providerBase,
    version: "v1.0.1",
    token: PROVIDER_TOKEN,
    timeoutMs: 15_000,
    readRetries: 2,
    timeZone: ZONE,
    logger: silent,
  });
  const khalti = new KhaltiPayments(
    { baseUrl: khaltiUrl, secretKey: KHALTI_KEY, timeoutMs: 15_000 },
    { show: async () => "", pending: async () => {}, hide: async () => {} },
    { returnUrl: "http://127.0.0.1:1/return", websiteUrl: "http://127.0.0.1:1/" },
  );
  const m = { calls: 0, callMs: 0, pacedMs: 0, pages: 0, pageMs: 0, writeMs: 0 };
  const live: number[] = [];
  const timed =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>, add: (ms: number) => void) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        return await call(...args);
      } finally {
        add(performance.now() - started);
      }
    };
  const counted = <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    timed(call, (ms) => {
      m.calls += 1;
      m.callMs += ms;
    });
  const audit: PaymentAudit = counted((pidx: string) => khalti.audit(pidx));
  const days = new LedgerDays(ledger, { timeZone: ZONE, minorDigits: 2 });
  const read = timed(
    (d: string, after: string | null, limit: number): Promise<LedgerSide[]> =>
      days.purchasesOfDay(d, after, limit),
    (ms) => {
      m.pages += 1;
      m.pageMs += ms;
    },
  );
  const pagedDays = {
    purchasesOfDay(d: string, after: string | null, limit: number) {
      // Out of the timings: what the run keeps from one page to the next.
      global.gc?.();
      live.push(process.memoryUsage().heapUsed);
      return read(d, after, limit);
    },
  };
  const asker = new PacedAsker({
    ratePerSecond: rate,
    attempts: ASK_ATTEMPTS,
    sleep: (ms) => {
      m.pacedMs += ms;
      return sleep(ms);
    },
    now: Date.now,
  });
  const store = new ReconciliationStore(ledger);
  const write = timed(
    (...args: Parameters<ReconciliationStore["progress"]>) => store.progress(...args),
    (ms) => {
      m.writeMs += ms;
    },
  );
  const findings: Record<string, number> = {};
  let delivered: (report: ReconciliationReport) => void = () => {};
  const done = new Promise<ReconciliationReport>((resolve) => {
    delivered = resolve;
  });
  const runs = new Reconciliations(
    Object.assign(Object.create(store) as ReconciliationStore, { progress: write }),
    daySources(
      pagedDays,
      new Map([["khalti", audit]]),
      { txnStatus: counted((checkoutId: string) => provider.txnStatus(checkoutId)) },
      asker,
      2,
      silent,
    ),
    (first, last) => new ProviderBalanceStore(ledger, 2).drifts(first, last, ZONE),
    async (report) => delivered(report),
    { holder: `bench:${process.pid}`, leaseMs: 60_000 },
    silent,
  );

  const memory = sampleMemory(10);
  const started = performance.now();
  await runs.request({ first: day, last: day }, 1);
  const report = await done;
  const wallMs = performance.now() - started;
  const used = memory.stop();
  for (const [kind, count] of report.counts) findings[kind] = count;
  await runs.stop();
  await provider.close();
  await ledger.close();
  return {
    purchases: report.purchases,
    ...m,
    liveFirstMb: (live[0] ?? 0) / MB,
    liveMaxMb: Math.max(...live) / MB,
    wallMs,
    findings,
    ...used,
  };
}

/** RSS and heap used from now (after a GC) to `stop`, sampled every `everyMs`, in MB. */
function sampleMemory(everyMs: number) {
  global.gc?.();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  };
  const sampler = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(sampler);
      sample();
      return {
        baseRssMb: base.rss / MB,
        peakRssMb: peakRss / MB,
        baseHeapMb: base.heapUsed / MB,
        peakHeapMb: peakHeap / MB,
      };
    },
  };
}

/** The findings of a day on which no checkout could be asked: one "not-asked" each. */
async function fillUnasked(ledger: LedgerConnection): Promise<void> {
  const days = { first: UNASKED_DAY, last: UNASKED_DAY };
  const run = await new ReconciliationStore(ledger).start(days, 1, "bench", 60_000);
  if (!run) throw new Error("no run started");
  await sql`
    INSERT INTO reconciliation_findings (run_id, day, purchase_id, kind, outside_ids, next_step)
    SELECT ${run.id}::bigint, ${UNASKED_DAY}::date, 'rc-unasked-' || lpad(i::text, 5, '0'),
      'not-asked', 'provider:' || md5(i::text), 'run the reconciliation of this day again'
    FROM generate_series(1, ${UNASKED_FINDINGS}) AS i`.execute(ledger.db);
}

interface ReportMeasured {
  findings: number;
  bytes: number;
  ms: number;
  baseRssMb: number;
  peakRssMb: number;
  baseHeapMb: number;
  peakHeapMb: number;
}

/** In the child: the end of a run (Reconciliations.report): its findings read, their CSV made. */
async function reportInChild(url: string): Promise<ReportMeasured> {
  const ledger = new LedgerConnection(
    { kind: "postgres", url, poolSize: 2, statementTimeoutMs: 60_000 },
    { log: silent },
  );
  await ledger.open();
  const store = new ReconciliationStore(ledger);
  const memory = sampleMemory(5);
  const started = performance.now();
  const counts = await store.openCounts(UNASKED_DAY, UNASKED_DAY);
  const earlier = await store.openBefore(UNASKED_DAY, 10);
  const run = { id: "0", firstDay: UNASKED_DAY, lastDay: UNASKED_DAY, startedBy: 1 };
  let bytes = 0;
  let rows = 0;
  const csv = findingsCsv(
    {
      run: { ...run, resumeAfter: null, purchases: 0 },
      purchases: 0,
      counts,
      settled: 0,
      earlier,
      drifts: [],
      rows: async function* () {
        for await (const finding of store.openUpTo(UNASKED_DAY)) {
          rows++;
          yield finding;
        }
      },
    },
    2,
  );
  for await (const chunk of csv) bytes += (chunk as Buffer).length;
  const ms = performance.now() - started;
  const used = memory.stop();
  await ledger.close();
  return {
    findings: rows,
    bytes,
    ms,
    ...used,
  };
}

/** Asynchronously: the sandboxes, in this process, answer the child's calls meanwhile. */
async function measureInChild<T>(args: string[]): Promise<T> {
  const self = fileURLToPath(import.meta.url);
  // Under production's memory settings (bin/start); BENCH_NODE_OPTIONS adds to them.
  const { stdout } = await promisify(execFile)(
    "bin/start",
    [process.execPath, "--expose-gc", "--import", "tsx", self, ...args],
    {
      encoding: "utf8",
      maxBuffer: MB,
      env: { ...process.env, NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? "" },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as T;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const duration = (s: number) =>
  s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(0)} min` : `${s} s`;

async function main(): Promise<void> {
  const [mode, url, day, rate, providerBase, khaltiUrl] = process.argv.slice(2);
  if (mode === "--run" && url && day && rate && providerBase && khaltiUrl) {
    const m = await reconcileInChild(url, day, Number(rate), providerBase, khaltiUrl);
    console.log(JSON.stringify(m));
    return;
  }
  if (mode === "--report" && url) {
    console.log(JSON.stringify(await reportInChild(url)));
    return;
  }
  const server = await startOwnPostgres();
  const sandbox = await createSandbox({
    token: PROVIDER_TOKEN,
    timeZone: ZONE,
    checkoutTtlMs: 3_600_000,
  });
  const khalti = await createKhaltiSandbox({ secretKey: KHALTI_KEY });
  const seeder = new ProviderClient({
    baseUrl: sandbox.baseUrl(),
    version: "v1.0.1",
    token: PROVIDER_TOKEN,
    timeoutMs: 15_000,
    readRetries: 0,
    timeZone: ZONE,
    logger: silent,
  });
  try {
    const url = await createDatabase(server.url, "bench_reconcile");
    const ledger = new LedgerConnection(
      { kind: "postgres", url, poolSize: 2, statementTimeoutMs: 120_000 },
      { log: silent },
    );
    await ledger.open();
    const seeding = performance.now();
    for (const size of ["big", "small", "tiny"] as const) {
      const rows = await makeAtSandboxes(DAYS[size], SIZES[size], seeder, khalti);
      await writeLedger(ledger, rows);
    }
    await sql`ANALYZE`.execute(ledger.db);
    await ledger.close();
    const total = SIZES.big + SIZES.small + SIZES.tiny;
    console.log(
      `made ${total} purchases (${sandbox.topups.length} top-ups at the provider sandbox, ` +
        `${khalti.payments().length} Khalti payment links) in ${seconds(performance.now() - seeding)}`,
    );

    const asked = () =>
      sandbox.requests.filter((r) => r.operation === "txn-status").length + khalti.calls.lookups();
    const runs: { day: string; rate: number; label: string }[] = [
      { day: DAYS.big, rate: FAST_RATE, label: "10,000 purchases" },
      { day: DAYS.small, rate: FAST_RATE, label: "1,000 purchases" },
      {
        day: DAYS.small,
        rate: CONFIG_MAX_RATE,
        label: "1,000 purchases, the highest rate allowed",
      },
      { day: DAYS.tiny, rate: DEFAULT_RATE, label: "50 purchases, the default rate" },
    ];
    console.log(
      "| run | rate (calls/s) | purchases | calls (at the sandboxes) | wall time | calls/s achieved | in calls | paced | ledger reads | ledger writes | RSS before | peak RSS growth | peak heap used | heap kept between pages (first, most) | findings |",
    );
    console.log(`|${" --- |".repeat(15)}`);
    const results: Measured[] = [];
    for (const run of runs) {
      const before = asked();
      const args = [url, run.day, String(run.rate), sandbox.baseUrl(), khalti.url];
      const m = await measureInChild<Measured>(["--run", ...args]);
      results.push(m);
      const calls = asked() - before;
      const findings = Object.entries(m.findings)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(", ");
      console.log(
        `| ${run.label} | ${run.rate} | ${m.purchases} | ${m.calls} (${calls}) | ${seconds(m.wallMs)} | ` +
          `${((m.calls * 1000) / m.wallMs).toFixed(1)} | ${seconds(m.callMs)} | ${seconds(m.pacedMs)} | ` +
          `${seconds(m.pageMs)} (${m.pages} pages) | ${seconds(m.writeMs)} | ${m.baseRssMb.toFixed(0)} MB | ` +
          `${(m.peakRssMb - m.baseRssMb).toFixed(1)} MB | ${m.peakHeapMb.toFixed(1)} MB | ` +
          `${m.liveFirstMb.toFixed(1)}, ${m.liveMaxMb.toFixed(1)} MB | ${findings || "none"} |`,
      );
    }
    const big = results[0];
    if (big) {
      const perPurchase = big.calls / big.purchases;
      for (const rate of [DEFAULT_RATE, CONFIG_MAX_RATE]) {
        const s = Math.round(big.calls / rate);
        console.log(
          `at ${rate} calls/s, the day of ${big.purchases} purchases (${big.calls} calls, ` +
            `${perPurchase.toFixed(2)} a purchase) takes at least ${big.calls} / ${rate} = ${s} s (${duration(s)})`,
        );
      }
    }

    const filler = new LedgerConnection(
      { kind: "postgres", url, poolSize: 2, statementTimeoutMs: 120_000 },
      { log: silent },
    );
    await filler.open();
    await fillUnasked(filler);
    await filler.close();
    const r = await measureInChild<ReportMeasured>(["--report", url]);
    console.log(
      `the end of a run whose provider could not be asked (${UNASKED_DAY}): ${r.findings} open ` +
        `findings read and their CSV made (${(r.bytes / MB).toFixed(1)} MB) in ${r.ms.toFixed(0)} ms; ` +
        `peak RSS growth ${(r.peakRssMb - r.baseRssMb).toFixed(1)} MB, heap used ${r.baseHeapMb.toFixed(1)} MB before, ${r.peakHeapMb.toFixed(1)} MB at most`,
    );
  } finally {
    await seeder.close();
    await khalti.close();
    await sandbox.close();
    await server.stop();
  }
}

await main();
