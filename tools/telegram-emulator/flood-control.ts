// Telegram's flood control, reduced to one rule: at most `perSecond` accepted message
// sends per bot within any sliding 1-second window, else 429 with retry_after.

import { ApiError } from "./api-error.js";
import type { FloodLimit } from "./types.js";

const WINDOW_MS = 1000;

export class FloodWindow {
  private readonly sentAt: number[] = [];

  /** Counts one send at `now`, or throws 429 when it would exceed the limit. */
  admit(limit: FloodLimit | undefined, now: number): void {
    const firstInWindow = this.sentAt.findIndex((time) => time > now - WINDOW_MS);
    this.sentAt.splice(0, firstInWindow === -1 ? this.sentAt.length : firstInWindow);
    const oldest = this.sentAt[0];
    if (limit && oldest !== undefined && this.sentAt.length >= limit.perSecond) {
      const retryAfter = Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
      throw new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, {
        retry_after: retryAfter,
      });
    }
    this.sentAt.push(now);
  }

  reset(): void {
    this.sentAt.length = 0;
  }
}
