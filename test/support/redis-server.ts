// A redis-server of the test's own, on a free port, for tests that stop, pause or restart
// Redis: the shared one on 6379 is never touched. Stopped by its PID.
import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { freePort } from "./ports.js";

export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILL: gone at once, like a crash. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing answers. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** A new server on the same port (after kill()). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Whether a Redis answers at this URL. */
export async function answers(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on("error", () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export async function startOwnRedis(extraArgs: string[] = []): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        ...extraArgs,
      ],
      { stdio: "ignore" },
    );
    for (let i = 0; i < 100; i++) {
      if (await answers(url)) return;
      await sleep(50);
    }
    throw new Error(`redis-server on port ${port} did not start`);
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGCONT");
    running.kill("SIGKILL");
    await exited;
  };

  await start();
  return {
    url,
    port,
    kill,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    start,
    stop: kill,
  };
}
