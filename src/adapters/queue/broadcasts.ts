import type { Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { BroadcastSender } from "../../domain/broadcast.js";
import type { Log } from "../../domain/ports.js";
import { TaskGroup } from "../../domain/task-group.js";
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

/** How often an idle instance looks for broadcasts to work on (another replica's, a crashed one's). */
const LOOK_FOR_WORK_MS = 5_000;

type BullMq = typeof import("bullmq");

/**
 * Broadcasts run as BullMQ jobs on the bot's Redis, outside the update handlers. A job whose
 * process died is picked up again after `lockMs` (BullMQ's stalled-job check) and resumes.
 * BullMQ is loaded only once there is a broadcast to send (enqueued here, or running in the
 * store for another replica's or a crashed process's): most instances never need it, and it
 * is the largest module the bot has. While Redis is away BullMQ keeps retrying; its errors are
 * logged quietly (the bot's own connection says once that Redis is gone).
 */
export class BroadcastQueue implements BroadcastRunner {
  private loading: Promise<{ queue: Queue; worker: Worker; connection: Redis }> | undefined;
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: RedisTarget,
    private readonly prefix: string,
    private readonly sender: BroadcastSender,
    private readonly lockMs: number,
    /** Whether any broadcast is unfinished (the store's own record of them). */
    private readonly hasWork: () => Promise<boolean>,
    private readonly log: Log,
  ) {}

  private readonly quiet = (error: Error) =>
    this.log.debug({ reason: error.message }, "broadcast queue cannot reach Redis");

  start(): void {
    const look = async () => {
      if (this.loading || this.stopping.signal.aborted) return;
      if (await this.hasWork().catch(() => false)) await this.load();
      else this.timer = setTimeout(look, LOOK_FOR_WORK_MS).unref();
    };
    void look();
  }

  private load() {
    this.loading ??= import("bullmq").then((bullmq) => this.open(bullmq));
    return this.loading;
  }

  private open({ Queue, Worker, DelayedError }: BullMq) {
    // BullMQ needs a connection that never gives up on a command.
    const connection = new Redis(redisOptions(this.target, { maxRetriesPerRequest: null }));
    connection.on("error", this.quiet);
    const queue = new Queue(QUEUE, { connection, prefix: this.prefix });
    queue.on("error", this.quiet);
    // A broadcast paused by a shutdown goes back to the queue at once, for any replica.
    const process = async (job: Job, token: string | undefined) => {
      const result = await this.sender.run(job.data.id as string, this.stopping.signal);
      if (result !== "paused") return;
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    };
    const worker = new Worker(QUEUE, process, {
      connection,
      prefix: this.prefix,
      concurrency: 1,
      lockDuration: this.lockMs,
      stalledInterval: this.lockMs,
      maxStalledCount: 1_000,
    });
    worker.on("error", this.quiet);
    worker.on("failed", (job, error) =>
      this.log.error({ err: error, broadcastId: job?.data.id }, "broadcast job failed"),
    );
    return { queue, worker, connection };
  }

  async enqueue(id: string): Promise<void> {
    const { queue } = await this.load();
    await queue.add("send", { id }, { jobId: id, removeOnComplete: 1_000, removeOnFail: 1_000 });
  }

  async depth(): Promise<number> {
    if (!this.loading) return 0;
    const { queue } = await this.loading;
    const counts = await queue.getJobCounts("waiting", "delayed", "active", "prioritized");
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  /** Queued jobs stay for the next worker; the running one pauses after its current message. */
  async close(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.timer);
    if (!this.loading) return;
    const { queue, worker, connection } = await this.loading;
    await worker.close();
    await queue.close();
    connection.disconnect();
  }
}

/**
 * Broadcasts sent by this process itself, for the offline playground's in-process storage
 * (BullMQ needs a real Redis). A restart does not resume them.
 */
export class InProcessBroadcasts implements BroadcastRunner {
  private readonly running = new TaskGroup();

  constructor(
    private readonly sender: BroadcastSender,
    private readonly log: Log,
  ) {}

  start(): void {}

  async enqueue(id: string): Promise<void> {
    this.running.track(
      this.sender
        .run(id)
        .catch((error: unknown) =>
          this.log.error({ err: error, broadcastId: id }, "broadcast failed"),
        ),
    );
  }

  async depth(): Promise<number> {
    return this.running.size;
  }

  async close(): Promise<void> {
    await this.running.drain();
  }
}
