import { DelayedError, type Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { BroadcastSender } from "../../domain/broadcast.js";
import type { Log } from "../../domain/ports.js";
import { type RedisTarget, redisOptions } from "../redis/options.js";

const QUEUE = "broadcasts";

/** Where stored broadcasts go to be sent. */
export interface BroadcastRunner {
  start(): void;
  enqueue(id: string): Promise<void>;
  /** Broadcasts waiting or being sent. */
  depth(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Broadcasts run as BullMQ jobs on the bot's Redis, outside the update handlers. A job whose
 * process died is picked up again after `lockMs` (BullMQ's stalled-job check) and resumes.
 * While Redis is away BullMQ keeps retrying; its errors are logged quietly (the bot's own
 * connection says once that Redis is gone).
 */
export class BroadcastQueue implements BroadcastRunner {
  private readonly connection: Redis;
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private readonly stopping = new AbortController();

  constructor(
    target: RedisTarget,
    private readonly prefix: string,
    private readonly sender: BroadcastSender,
    private readonly lockMs: number,
    private readonly log: Log,
  ) {
    // BullMQ needs a connection that never gives up on a command.
    this.connection = new Redis(redisOptions(target, { maxRetriesPerRequest: null }));
    this.connection.on("error", this.quiet);
    this.queue = new Queue(QUEUE, { connection: this.connection, prefix });
    this.queue.on("error", this.quiet);
  }

  private readonly quiet = (error: Error) =>
    this.log.debug({ reason: error.message }, "broadcast queue cannot reach Redis");

  start(): void {
    this.worker = new Worker(QUEUE, (job, token) => this.process(job, token), {
      connection: this.connection,
      prefix: this.prefix,
      concurrency: 1,
      lockDuration: this.lockMs,
      stalledInterval: this.lockMs,
      maxStalledCount: 1_000,
    });
    this.worker.on("error", this.quiet);
    this.worker.on("failed", (job, error) =>
      this.log.error({ err: error, broadcastId: job?.data.id }, "broadcast job failed"),
    );
  }

  /** A broadcast paused by a shutdown goes back to the queue at once, for any replica. */
  private async process(job: Job, token: string | undefined): Promise<void> {
    const result = await this.sender.run(job.data.id as string, this.stopping.signal);
    if (result !== "paused") return;
    await job.moveToDelayed(Date.now(), token);
    throw new DelayedError();
  }

  async enqueue(id: string): Promise<void> {
    await this.queue.add(
      "send",
      { id },
      { jobId: id, removeOnComplete: 1_000, removeOnFail: 1_000 },
    );
  }

  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts("waiting", "delayed", "active", "prioritized");
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  /** Queued jobs stay for the next worker; the running one pauses after its current message. */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.worker?.close();
    await this.queue.close();
    this.connection.disconnect();
  }
}

/**
 * Broadcasts sent by this process itself, for the offline playground's in-process storage
 * (BullMQ needs a real Redis). A restart does not resume them.
 */
export class InProcessBroadcasts implements BroadcastRunner {
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly sender: BroadcastSender,
    private readonly log: Log,
  ) {}

  start(): void {}

  async enqueue(id: string): Promise<void> {
    const task = this.sender
      .run(id)
      .catch((error: unknown) =>
        this.log.error({ err: error, broadcastId: id }, "broadcast failed"),
      )
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  async depth(): Promise<number> {
    return this.running.size;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
