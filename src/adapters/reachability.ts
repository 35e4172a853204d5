// Whether a store answers (Redis, the ledger's database): probed while the bot runs, and said
// once each way in the log: one error line when it is lost, one info line when it is back.
import type { Log } from "../domain/ports.js";

export class Reachability {
  private up: boolean | undefined;
  private since = 0;
  private probe: NodeJS.Timeout | undefined;
  private stopped = false;

  /** @param what the store as the log names it ("Redis", "the ledger's database") */
  constructor(
    private readonly what: string,
    private readonly log: Log,
    private readonly onLost?: () => void,
  ) {}

  /** True while the store answers. */
  get healthy(): boolean {
    return this.up === true;
  }

  /** False once it is known to be away (unknown before the first answer). */
  get away(): boolean {
    return this.up === false;
  }

  /** When it was last found back (epoch ms). */
  get upSince(): number {
    return this.since;
  }

  /** Asks `ping` every `everyMs`: an answer marks it up, a failure down. */
  watch(ping: () => Promise<unknown>, everyMs: number): void {
    this.probe = setInterval(() => {
      ping().then(
        () => this.mark(true),
        (error: unknown) => this.mark(false, error),
      );
    }, everyMs);
    this.probe.unref();
  }

  mark(up: boolean, error?: unknown): void {
    if (up === this.up || this.stopped) return;
    this.up = up;
    if (up) {
      this.since = Date.now();
      this.log.info({}, `${this.what} is reachable`);
      return;
    }
    this.log.error({ reason: reasonOf(error) }, `${this.what} is unreachable`);
    this.onLost?.();
  }

  /** Closing: nothing more is probed or said. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.probe);
  }
}

/** One line, no stack and no query text: the reason is enough to act on. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return "connection ended";
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !error.message.includes(code)
    ? `${code} ${error.message}`
    : error.message;
}
