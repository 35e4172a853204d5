// Long polling with several instances: only the instance whose turn it is polls (Telegram
// allows one getUpdates per bot); the others stand by and take over once the turn lapses. A
// 409 (somebody else polls with this token) is a warning and a pause, never a crash.
import { type RunnerHandle, run } from "@grammyjs/runner";
import type { Bot } from "grammy";
import type { Log } from "../domain/ports.js";
import type { BotContext } from "./context.js";

/** The turn to poll, shared by the instances (a lease in the store). */
export interface PollingTurn {
  take(): Promise<boolean>;
  /** False when somebody else holds it now. */
  keep(): Promise<boolean>;
  give(): Promise<void>;
}

export interface PollerOptions {
  /** The turn's lease: a dead holder's turn lapses after this; renewed every fifth of it. */
  leaseMs: number;
  /**
   * Updates handled at once. Most of an update's time is spent waiting (the provider, Redis),
   * so the runner's default of 500 made a tap wait behind hundreds of lookups that only waited
   * for the provider (bench/JOURNEY.md).
   */
  concurrency: number;
  pollTimeoutSeconds: number;
  allowedUpdates: readonly string[];
}

const MAX_BACKOFF_MS = 30_000;

export class Poller {
  private runner: RunnerHandle | undefined;
  private holding = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** When the turn was last known to be ours. */
  private keptAt = 0;
  private backoffMs = 0;
  private pausedUntil = 0;
  private startedAt = 0;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly bot: Bot<BotContext>,
    private readonly turn: PollingTurn,
    private readonly options: PollerOptions,
    private readonly log: Log,
  ) {}

  start(): void {
    this.tick();
  }

  /**
   * Stops polling and gives the turn to a standby. The updates under way are not waited for
   * here (the runner's stop does not): the app's drain waits for them.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    const held = this.holding;
    await this.standBy();
    if (held) await this.turn.give().catch(() => undefined);
  }

  private tick(): void {
    if (this.stopped) return;
    this.ticking = this.step()
      .catch((error: unknown) => this.log.debug({ reason: String(error) }, "polling turn check"))
      .finally(() => {
        this.ticking = undefined;
        if (this.stopped) return;
        this.timer = setTimeout(() => this.tick(), this.options.leaseMs / 5);
        this.timer.unref();
      });
  }

  private async step(): Promise<void> {
    if (!this.holding) {
      if (!(await this.turn.take())) return;
      this.holding = true;
      this.keptAt = Date.now();
      this.log.info({}, "this instance polls Telegram");
      await this.bot.api.deleteWebhook().catch(() => undefined);
    } else {
      try {
        if (!(await this.turn.keep())) {
          this.log.warn({}, "another instance took the polling turn: standing by");
          return this.standBy();
        }
        this.keptAt = Date.now();
      } catch (error) {
        // The store is away: go on polling while the turn cannot have lapsed for the others.
        if (Date.now() - this.keptAt < this.options.leaseMs * 0.8) return;
        this.log.warn({}, "could not renew the polling turn: standing by");
        await this.standBy();
        throw error;
      }
    }
    if (!this.runner && Date.now() >= this.pausedUntil) this.begin();
    // Polling went well for a while: the next conflict starts the backoff afresh.
    if (this.runner && Date.now() - this.startedAt > MAX_BACKOFF_MS) this.backoffMs = 0;
  }

  private begin(): void {
    const runner = run(this.bot, {
      runner: {
        fetch: {
          timeout: this.options.pollTimeoutSeconds,
          allowed_updates: this.options.allowedUpdates as never,
        },
        silent: true,
        retryInterval: "exponential",
      },
      sink: { concurrency: this.options.concurrency },
    });
    this.runner = runner;
    this.startedAt = Date.now();
    runner.task()?.catch((error: unknown) => this.crashed(runner, error));
  }

  /**
   * getUpdates failed for good (409: somebody outside polls with this token, or a webhook is
   * set; 401): pause with a growing backoff, keeping the turn so that the instances do not
   * take turns failing.
   */
  private crashed(runner: RunnerHandle, error: unknown): void {
    if (this.runner !== runner) return;
    this.runner = undefined;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(1_000, this.backoffMs * 2));
    this.pausedUntil = Date.now() + this.backoffMs;
    const code = (error as { error_code?: number }).error_code;
    const fields = { code, retryInSeconds: this.backoffMs / 1000 };
    if (code === 409) {
      this.log.warn(fields, "Telegram answered 409: something else polls with this token");
    } else {
      this.log.error({ ...fields, reason: String(error) }, "polling stopped; trying again");
    }
  }

  private async standBy(): Promise<void> {
    this.holding = false;
    const runner = this.runner;
    this.runner = undefined;
    if (runner?.isRunning()) await runner.stop();
  }
}
