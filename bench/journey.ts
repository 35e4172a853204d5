// Benchmarks of the bot side of the journey: handling time per update, paging stability,
// Redis round trips per browsing update, and 1000 concurrent users against a slow provider with
// the ledger on PostgreSQL (a server of the benchmark's own), counting the statements each
// purchase costs the database.
// Run with `npm run bench:journey`; results are written down in bench/JOURNEY.md.
import { performance } from "node:perf_hooks";
import type { Message } from "grammy/types";
import { Redis } from "ioredis";
import pg from "pg";
import { startProcessStack } from "../test/support/bot-process.js";
import { startOwnPostgres } from "../test/support/postgres-server.js";
import { TEST_REDIS_URL } from "../test/support/redis.js";
import { type Stack, startStack } from "../test/support/stack.js";
import type { ChatUser } from "../tools/telegram-emulator/index.js";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const spread = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99) });
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Presses a button and returns the time until the bot's edit of that message arrives. */
async function timedPress(user: ChatUser, label: string | RegExp): Promise<number> {
  const started = performance.now();
  const edited = user.waitForMessage(() => true, { timeoutMs: 10_000 });
  user.press(label);
  await edited;
  return performance.now() - started;
}

async function openAddOns(stack: Stack, id: number): Promise<ChatUser> {
  const user = stack.emulator.user({ id, first_name: "Bench", language_code: "en" });
  const menu = user.waitForText("Choose a package");
  user.sendText("/topup 1000002");
  await user.waitForText("Which connection");
  user.press(/••••0021/);
  await menu;
  const list = user.waitForText(/page 1 of/);
  user.press("Add-ons");
  await list;
  return user;
}

async function commandCalls(redis: Redis): Promise<number> {
  const stats = await redis.info("commandstats");
  return [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Bot-side time per browsing update (the bot's own histogram), and press-to-edit time. */
async function browsing(stack: Stack) {
  const user = await openAddOns(stack, 9001);
  for (let i = 0; i < 20; i++) await timedPress(user, i % 2 === 0 ? "Next ›" : "‹ Prev"); // warm-up
  stack.app.metrics.updateSeconds.reset();
  const times: number[] = [];
  for (let i = 0; i < 500; i++)
    times.push(await timedPress(user, i % 2 === 0 ? "Next ›" : "‹ Prev"));
  // Estimated from the bot's own histogram, as Prometheus's histogram_quantile() does:
  // linearly within the bucket that holds the quantile.
  const { values } = await stack.app.metrics.updateSeconds.get();
  const buckets = values
    .filter((v) => {
      const labels = v.labels as { kind?: string; le?: number | string };
      return labels.kind === "callback_query" && labels.le !== undefined;
    })
    .map((v) => {
      const le = (v.labels as { le: number | string }).le;
      return { le: le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), count: v.value };
    })
    .sort((a, b) => a.le - b.le);
  const quantile = (q: number) => {
    const rank = q * (buckets.at(-1)?.count ?? 0);
    let below = { le: 0, count: 0 };
    for (const bucket of buckets) {
      if (bucket.count >= rank) {
        if (!Number.isFinite(bucket.le)) return 1000 * below.le;
        const share = (rank - below.count) / Math.max(1, bucket.count - below.count);
        return 1000 * (below.le + (bucket.le - below.le) * share);
      }
      below = bucket;
    }
    return Number.NaN;
  };
  return {
    botMedian: quantile(0.5),
    botP99: quantile(0.99),
    roundTripMedian: percentile(times, 50),
    roundTripP99: percentile(times, 99),
  };
}

async function pagingStability(stack: Stack) {
  const user = await openAddOns(stack, 9002);
  const times: number[] = [];
  for (let i = 0; i < 100; i++)
    times.push(await timedPress(user, i % 2 === 0 ? "Next ›" : "‹ Prev"));
  const first = percentile(times.slice(0, 10), 50);
  const last = percentile(times.slice(90), 50);
  return { first, last, ratio: last / first };
}

async function roundTrips(stack: Stack) {
  const user = await openAddOns(stack, 9003);
  const probe = new Redis(TEST_REDIS_URL);
  await timedPress(user, "Next ›");
  const presses = 50;
  const before = await commandCalls(probe);
  for (let i = 0; i < presses; i++) await timedPress(user, i % 2 === 0 ? "‹ Prev" : "Next ›");
  // The probe's own INFO call counts once.
  const perUpdate = ((await commandCalls(probe)) - before - 1) / presses;
  probe.disconnect();
  return perUpdate;
}

/** Statements the ledger's database ran (pg_stat_statements: every round trip, BEGIN and COMMIT included). */
async function statementsRun(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    const { rows } = await client.query(
      "SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    return Number(rows[0]?.calls ?? 0);
  } finally {
    await client.end();
  }
}

/** The bot in a process of its own (as deployed), the sandbox and emulator in this one. */
async function concurrentUsers(users: number, latencyMs: number) {
  const processes = await startProcessStack("bench_load");
  const { sandbox, emulator } = processes;
  const metricsPort = 19_464;
  processes.startBot({
    // The metrics listener needs the public one beside it; neither is used otherwise.
    HTTP_PORT: String(metricsPort + 1),
    METRICS_PORT: String(metricsPort),
    TELEGRAM_POLL_TIMEOUT_SECONDS: "30",
  });
  try {
    const probe = emulator.user({ id: 19_999, first_name: "Probe", language_code: "en" });
    const ready = probe.waitForText("Welcome", { timeoutMs: 20_000 });
    probe.sendText("/start");
    await ready;
    const statementsBefore = await statementsRun(processes.databaseUrl);
    for (const operation of [
      "get-customer-information",
      "get-subscription-package",
      "subscription-package-topup",
      "txn-status",
    ] as const) {
      sandbox.setFault(operation, { kind: "latency", ms: latencyMs });
    }
    const journey = async (id: number) => {
      const user = emulator.user({ id, first_name: "Load", language_code: "en" });
      const wait = (expected: string) => user.waitForText(expected, { timeoutMs: 60_000 });
      const started = performance.now();
      let next: Promise<Message> = wait("Choose a package");
      user.sendText("/topup 1000001");
      await next;
      const menuAt = performance.now();
      next = wait("Please confirm");
      user.press(/Renew/);
      await next;
      const confirmAt = performance.now();
      const processing = wait("Processing your payment");
      next = wait("Top-up successful");
      user.press(/Confirm/);
      await processing;
      const processingAt = performance.now();
      await next;
      return {
        toMenu: menuAt - started,
        browse: confirmAt - menuAt,
        confirm: processingAt - confirmAt,
        total: performance.now() - started,
      };
    };
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: users }, (_, i) => journey(20_000 + i)));
    const wall = performance.now() - started;
    // The receipts are out; each purchase's last write (told) may still be under way.
    const charged = async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return Number(/bot_purchases_total\{outcome="charged",reason=""\} (\d+)/.exec(metrics)?.[1]);
    };
    let purchases = await charged();
    for (let waited = 0; purchases < users && waited < 60_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      purchases = await charged();
    }
    // Less the counting queries themselves; the idle work (reconciliation, leases) is included.
    const statements = (await statementsRun(processes.databaseUrl)) - statementsBefore - 2;
    return {
      completed: results.length,
      topups: sandbox.topups.length,
      purchases,
      statements,
      wall,
      toMenu: spread(results.map((r) => r.toMenu)),
      browse: spread(results.map((r) => r.browse)),
      confirm: spread(results.map((r) => r.confirm)),
      total: spread(results.map((r) => r.total)),
    };
  } finally {
    await processes.stop();
  }
}

// The ledger on a PostgreSQL server of the benchmark's own, as production runs; the stacks
// take their databases on it.
const postgres = await startOwnPostgres(["shared_preload_libraries=pg_stat_statements"]);
process.env.TEST_POSTGRES_URL = postgres.url;

// One simulated user presses far faster than a person: no flood limit here.
const stack = await startStack("bench", {
  LOG_LEVEL: "silent",
  FLOOD_LIMIT: "1000",
  RECONCILE_INTERVAL_SECONDS: "3600",
});
let handling: Awaited<ReturnType<typeof browsing>>;
let paging: Awaited<ReturnType<typeof pagingStability>>;
let trips: number;
try {
  handling = await browsing(stack);
  paging = await pagingStability(stack);
  trips = await roundTrips(stack);
} finally {
  await stack.stop();
}
const latency = Number(process.env.BENCH_LATENCY_MS ?? 150);
const users = Number(process.env.BENCH_USERS ?? 1000);
const load = await concurrentUsers(users, latency).finally(() => postgres.stop());

console.log(`Node ${process.version}, ${new Date().toISOString()}`);
console.log("Browsing update (Next/Prev), 500 presses:");
console.log(`  bot-side handling: median ${ms(handling.botMedian)}, p99 ${ms(handling.botP99)}`);
console.log(
  `  press to edit seen by the user (emulator HTTP both ways): median ${ms(handling.roundTripMedian)}, p99 ${ms(handling.roundTripP99)}`,
);
console.log("Paging 100 times in one flow (press to edit):");
console.log(
  `  steps 1-10 median ${ms(paging.first)}, steps 91-100 median ${ms(paging.last)}, ratio ${paging.ratio.toFixed(2)}`,
);
console.log(
  `Redis commands per browsing update, those run inside scripts included: ${trips.toFixed(2)}`,
);
console.log(`${users} users, whole journey at once, provider latency ${latency} ms per call:`);
console.log(
  `  completed ${load.completed}, top-ups in the sandbox ${load.topups}, purchases done ${load.purchases}, wall ${ms(load.wall)}`,
);
console.log(
  `  /topup to menu (2 provider calls): p50 ${ms(load.toMenu.p50)}, p99 ${ms(load.toMenu.p99)}`,
);
console.log(
  `  Renew to confirm screen (no provider call): p50 ${ms(load.browse.p50)}, p99 ${ms(load.browse.p99)}`,
);
console.log(
  `  Confirm to "Processing your payment…": p50 ${ms(load.confirm.p50)}, p99 ${ms(load.confirm.p99)}`,
);
console.log(
  `  whole journey (5 provider calls): p50 ${ms(load.total.p50)}, p99 ${ms(load.total.p99)}`,
);
console.log(
  `  ledger statements (round trips) per purchase, reconciliation and leases during the run included: ${(load.statements / load.purchases).toFixed(1)}`,
);
