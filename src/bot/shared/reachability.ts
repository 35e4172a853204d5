import { HttpError, type Transformer } from "grammy";
import type { Log } from "../../domain/ports.js";

/**
 * Whether Telegram can be reached, said once when Bot API calls start failing and once when a
 * call sent after the last failure gets through. grammY's auto-retry tries a call that met a
 * network error, a timeout or an answer that is not Telegram's JSON (grammY's HttpError) again
 * and again, backing off up to an hour, without a word: a bot started with a wrong
 * TELEGRAM_API_ROOT, or without a way out, said nothing at all however long it waited.
 */
export class TelegramReachability {
  /** Calls sent so far, numbered in order. */
  private sent = 0;
  /** How many had been sent when the last one failed: only a later one shows Telegram back. */
  private sentBeforeFailure = 0;
  private reachable = true;

  constructor(private readonly log: Log) {}

  /**
   * Installed inside auto-retry (configureApi), so that it sees every attempt, with the caller's
   * own signal: a call its caller cut short (a stop ending the long poll) says nothing, where
   * grammY's own timeout is a failure like any other.
   */
  readonly transformer: Transformer = async (prev, method, payload, signal) => {
    const number = ++this.sent;
    try {
      const answer = await prev(method, payload, signal);
      if (!this.reachable && number > this.sentBeforeFailure) {
        this.reachable = true;
        this.log.info({ method }, "Telegram can be reached again");
      }
      return answer;
    } catch (error) {
      if (error instanceof HttpError && !signal?.aborted) {
        if (this.reachable) {
          this.log.warn(
            { method, err: error },
            "Telegram cannot be reached: the Bot API's calls are tried again until it can",
          );
        }
        this.reachable = false;
        this.sentBeforeFailure = this.sent;
      }
      throw error;
    }
  };
}
