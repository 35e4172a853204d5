// The finance report's CSV over a month of 100,000 purchases: wall time and memory of the
// bot's own path (the ledger read page by page, the CSV stream, grammY's multipart upload) and
// of the summary's SQL aggregates. Run with `npm run bench:report`; results in bench/REPORT.md.
//
// The parent starts a PostgreSQL server of its own and fills it; each measurement runs in a
// child process of its own, so that its peak RSS is its own and nothing earlier counts.
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Api, InputFile } from "grammy";
import { sql } from "kysely";
import { LedgerConnection } from "../src/adapters/ledger/connection.js";
import { LedgerReports } from "../src/adapters/ledger/reports.js";
import { salesChart } from "../src/bot/features/report/chart.js";
import { reportCsv } from "../src/bot/features/report/csv.js";
import type { ReportPeriod } from "../src/domain/report.js";
import { createDatabase } from "../test/support/postgres.js";
import { startOwnPostgres } from "../test/support/postgres-server.js";

const ZONE = "Asia/Kathmandu";
const PURCHASES = 100_000;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const MB = 1024 * 1024;

interface Measured {
  rows: number;
  bytes: number;
  produceMs: number;
  csvMs: number;
  summaryMs: number;
  baseRssMb: number;
  peakRssMb: number;
  /** The chart of the period: the first (loading echarts and resvg), then the next. */
  chartMs: [number, number];
  /** Heap the chart's libraries keep once loaded. */
  chartHeapMb: number;
}

/** November 2026 in Kathmandu, one purchase every 25.92 s; 5 % declined, 1 % unknown. */
async function fill(ledger: LedgerConnection): Promise<void> {
  await sql`
    INSERT INTO purchases (id, buyer, language, customer_id, customer_name, service,
      connection_id, bouquet_code, bouquet_name, price, attempt, checkout_id, checkout_issued_at,
      reference, phase, told, reason, txn_id, txn_amount, from_reminder, created_at, updated_at,
      due_at)
    SELECT 'bench-' || i, 100000 + i, 'en', (1000000 + i % 5000)::text, 'Customer ' || i,
      (ARRAY['tv', 'internet', 'iptv'])[1 + i % 3], 'conn-' || (i % 7000), 'B-' || (i % 40),
      'Bouquet ' || (i % 40) || ' (MONTHLY)', 100 + (i % 900) + 0.5, 1, md5(i::text), t,
      'tg' || i, p, CASE WHEN p <> 'unknown' THEN p END,
      CASE WHEN p = 'not-charged' THEN 'declined' END,
      CASE WHEN p = 'charged' THEN 'TXN' || lpad(i::text, 12, '0') END,
      CASE WHEN p = 'charged' THEN 100 + (i % 900) + 0.5 END, false, t, t,
      CASE WHEN p = 'unknown' THEN t END
    FROM (
      SELECT i, timestamptz '2026-11-01 00:00:00+05:45' + (i - 1) * interval '25.92 seconds' AS t,
        CASE WHEN i % 20 = 0 THEN 'not-charged' WHEN i % 97 = 0 THEN 'unknown' ELSE 'charged' END
          AS p
      FROM generate_series(1, ${PURCHASES}) AS i
    ) AS s`.execute(ledger.db);
  await sql`ANALYZE purchases`.execute(ledger.db);
}

/** A Bot API stand-in that reads each upload to its end and throws it away. */
async function discardingTelegram() {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      const chat = { id: 1, type: "private", first_name: "Admin" };
      response.end(JSON.stringify({ ok: true, result: { message_id: 1, date: 0, chat } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    uploaded: () => bytes,
    close: () => server.close(),
  };
}

/** In the child: one period's CSV through grammY, and its summary. */
async function produce(url: string, period: ReportPeriod): Promise<Measured> {
  const ledger = new LedgerConnection(
    { kind: "postgres", url, poolSize: 2, statementTimeoutMs: 60_000 },
    { log: silent },
  );
  await ledger.open();
  const reports = new LedgerReports(ledger, ZONE);
  const telegram = await discardingTelegram();
  const api = new Api("1:bench", { apiRoot: telegram.apiRoot });
  let rows = 0;
  async function* counted() {
    for await (const row of reports.rows(period)) {
      rows += 1;
      yield row;
    }
  }
  global.gc?.();
  const baseRss = process.memoryUsage().rss;
  let peakRss = baseRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 5);
  // The file alone, read to its end; then as the bot sends it.
  const producing = performance.now();
  for await (const _ of reportCsv(reports.rows(period), ZONE, "NPR"));
  const produceMs = performance.now() - producing;
  const started = performance.now();
  await api.sendDocument(1, new InputFile(() => reportCsv(counted(), ZONE, "NPR"), "report.csv"));
  const csvMs = performance.now() - started;
  const summaryStarted = performance.now();
  await reports.summary(period);
  const summaryMs = performance.now() - summaryStarted;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const sales = await reports.dailySales(period);
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const chartMs: [number, number] = [0, 0];
  for (const i of [0, 1]) {
    const drawing = performance.now();
    await salesChart(sales, `${period.first} – ${period.last}`);
    chartMs[i] = performance.now() - drawing;
  }
  global.gc?.();
  const chartHeapMb = (process.memoryUsage().heapUsed - heapBefore) / MB;
  telegram.close();
  await ledger.close();
  return {
    rows,
    bytes: telegram.uploaded(),
    produceMs,
    csvMs,
    summaryMs,
    baseRssMb: baseRss / MB,
    peakRssMb: peakRss / MB,
    chartMs,
    chartHeapMb,
  };
}

function measureInChild(url: string, period: ReportPeriod): Measured {
  const self = fileURLToPath(import.meta.url);
  // Under production's memory settings (bin/start); BENCH_NODE_OPTIONS adds to them, as in
  // bench/ratio.ts.
  const output = execFileSync(
    "bin/start",
    [
      process.execPath,
      "--expose-gc",
      "--import",
      "tsx",
      self,
      "--produce",
      url,
      period.first,
      period.last,
    ],
    {
      encoding: "utf8",
      maxBuffer: MB,
      env: { ...process.env, NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? "" },
    },
  );
  return JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as Measured;
}

async function main(): Promise<void> {
  const [mode, url, first, last] = process.argv.slice(2);
  if (mode === "--produce" && url && first && last) {
    console.log(JSON.stringify(await produce(url, { first, last })));
    return;
  }
  const server = await startOwnPostgres();
  try {
    const url = await createDatabase(server.url, "bench_report");
    const ledger = new LedgerConnection(
      { kind: "postgres", url, poolSize: 2, statementTimeoutMs: 120_000 },
      { log: silent },
    );
    await ledger.open();
    const filling = performance.now();
    await fill(ledger);
    console.log(`filled ${PURCHASES} purchases in ${(performance.now() - filling).toFixed(0)} ms`);
    await ledger.close();
    console.log(
      "| period | purchases | upload bytes | CSV produced | CSV sent through grammY | summary (SQL) | RSS before | peak RSS growth |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
    const periods: ReportPeriod[] = [
      { first: "2026-11-20", last: "2026-11-20" },
      { first: "2026-11-01", last: "2026-11-06" },
      { first: "2026-11-01", last: "2026-11-30" },
    ];
    const charts: string[] = [];
    for (const period of periods) {
      const m = measureInChild(url, period);
      charts.push(
        `chart of ${period.first}..${period.last}: first ${m.chartMs[0].toFixed(0)} ms ` +
          `(loading echarts and resvg), then ${m.chartMs[1].toFixed(0)} ms; ` +
          `${m.chartHeapMb.toFixed(1)} MB of heap kept`,
      );
      console.log(
        `| ${period.first}..${period.last} | ${m.rows} | ${(m.bytes / MB).toFixed(1)} MB | ` +
          `${m.produceMs.toFixed(0)} ms | ${m.csvMs.toFixed(0)} ms | ${m.summaryMs.toFixed(0)} ms | ${m.baseRssMb.toFixed(0)} MB | ` +
          `${(m.peakRssMb - m.baseRssMb).toFixed(1)} MB |`,
      );
    }
    console.log(charts.join("\n"));
  } finally {
    await server.stop();
  }
}

await main();
