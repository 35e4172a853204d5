// Whether Telegram can be reached, said once when it cannot and once when it can again. grammY's
// retries (auto-retry) try a call that met a network error again and again, backing off up to an
// hour, without a word: a bot started without a way to Telegram (a wrong TELEGRAM_API_ROOT, no
// network) said nothing at all, however long it waited.
import type { Log } from "../domain/ports.js";

type Fetch = typeof fetch;

/** The path's last part: the rest holds the bot's token, never logged. */
const methodOf = (input: string) => new URL(input).pathname.split("/").at(-1) ?? "";

/**
 * `fetch` (grammY's `client.fetch`), telling `log` when a Bot API call finds no Telegram (a
 * network error, or an answer that is not Telegram's JSON) and when one gets through again. A
 * call cut short by its own signal (a stop ending the long poll) says nothing.
 */
export function reportingReachability(fetch: Fetch, log: Log): Fetch {
  let reachable: boolean | undefined;
  const failed = (input: string, error: unknown, signal: AbortSignal | null | undefined) => {
    if (signal?.aborted) return;
    if (reachable !== false) {
      log.warn(
        { method: methodOf(input), err: error },
        "Telegram cannot be reached: the Bot API's calls are tried again until it can",
      );
    }
    reachable = false;
  };
  const reached = (input: string) => {
    if (reachable === false) log.info({ method: methodOf(input) }, "Telegram can be reached again");
    reachable = true;
  };
  const call = async (input: string, init: RequestInit = {}) => {
    let answer: Response;
    try {
      answer = await fetch(input, init);
    } catch (error) {
      failed(input, error, init.signal);
      throw error;
    }
    return {
      ok: answer.ok,
      status: answer.status,
      json: async () => {
        try {
          const body: unknown = await answer.json();
          reached(input);
          return body;
        } catch (error) {
          failed(input, error, init.signal);
          throw error;
        }
      },
    };
  };
  return call as unknown as Fetch;
}
