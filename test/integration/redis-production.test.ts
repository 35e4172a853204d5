// Redis as production runs it: through Sentinel (a sentinel of the test's own in front of a
// redis-server of its own) and over TLS (rediss://, with a throwaway certificate). The bot's
// connection and BullMQ's are made from the same settings.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisConnection } from "../../src/adapters/redis/connection.js";
import { type RedisTarget, redisOptions } from "../../src/adapters/redis/options.js";
import { type Certificate, throwawayCertificate, trusting } from "../support/certificate.js";
import { freePort } from "../support/ports.js";
import { type OwnRedis, startOwnRedis } from "../support/redis-server.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function answersThrough(target: RedisTarget): Promise<void> {
  const connection = new RedisConnection(target, { commandTimeoutMs: 2_000, log: quiet });
  await connection.open();
  try {
    await connection.redis.set("production-test:key", "ok", "EX", 10);
    expect(await connection.redis.get("production-test:key")).toBe("ok");
  } finally {
    await connection.close();
  }
  const connectionForQueue = new Redis(redisOptions(target, { maxRetriesPerRequest: null }));
  const queue = new Queue("production-test", {
    connection: connectionForQueue,
    prefix: "production-test",
  });
  try {
    await queue.add("job", {}, { jobId: "one" });
    expect(await queue.getJobCounts("waiting")).toEqual({ waiting: 1 });
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
    connectionForQueue.disconnect();
  }
}

/** Waits for a Redis on `port`: over TLS when given the certificate it presents. */
async function waitForPort(port: number, certificate?: Certificate): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const probe = new Redis({
        host: "127.0.0.1",
        port,
        lazyConnect: true,
        retryStrategy: () => null,
        ...(certificate && { tls: { ca: certificate.cert } }),
      });
      probe.on("error", () => undefined);
      await probe.connect();
      probe.disconnect();
      return;
    } catch {
      await sleep(50);
    }
  }
  throw new Error(`nothing answers on ${port}`);
}

describe("Redis through Sentinel", () => {
  let master: OwnRedis;
  let sentinel: ReturnType<typeof spawn>;
  let sentinelPort: number;
  const dir = mkdtempSync(join(tmpdir(), "sentinel-"));
  beforeAll(async () => {
    master = await startOwnRedis();
    sentinelPort = await freePort();
    const file = join(dir, "sentinel.conf");
    writeFileSync(
      file,
      [
        `port ${sentinelPort}`,
        "bind 127.0.0.1",
        `sentinel monitor testmaster 127.0.0.1 ${master.port} 1`,
        "",
      ].join("\n"),
    );
    sentinel = spawn("redis-server", [file, "--sentinel"], { stdio: "ignore" });
    await waitForPort(sentinelPort);
  });
  afterAll(async () => {
    sentinel.kill("SIGKILL");
    await master.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds the master and serves the bot's connection and BullMQ's", async () => {
    await answersThrough({
      url: "redis://ignored-host:1/0",
      sentinels: [{ host: "127.0.0.1", port: sentinelPort }],
      sentinelName: "testmaster",
    });
  });
});

describe("Redis over TLS (rediss://)", () => {
  let server: ReturnType<typeof spawn>;
  let port: number;
  const certificate = throwawayCertificate();
  beforeAll(async () => {
    port = await freePort();
    const args = ["--port", "0", "--tls-port", String(port), "--bind", "127.0.0.1"];
    const files = ["--tls-cert-file", certificate.certFile, "--tls-key-file", certificate.keyFile];
    server = spawn("redis-server", [...args, ...files, "--tls-auth-clients", "no", "--save", ""], {
      stdio: "ignore",
    });
    await waitForPort(port, certificate);
  });
  afterAll(() => {
    server.kill("SIGKILL");
    certificate.remove();
  });

  it("connects with TLS from the URL alone (certificate checks left on by default)", async () => {
    const target = { url: `rediss://127.0.0.1:${port}`, sentinelName: "mymaster" };
    expect(redisOptions(target).tls).toEqual({});
    await trusting(certificate, () => answersThrough(target));
  });
});
