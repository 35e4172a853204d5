// Injected misbehaviour: which lookups answer Pending, and how many lookups and refunds fail
// before the sandbox behaves again.

import type { KhaltiFaults, LookupFailure } from "./types.js";

interface Countdown<T> {
  what: T;
  remaining: number;
}

function countdown<T>(times: number, what: T): Countdown<T> {
  if (!(Number.isInteger(times) && times > 0)) {
    throw new RangeError(`Fault times must be a positive integer, got ${times}`);
  }
  return { what, remaining: times };
}

/** Counts one use of the fault; returns what it does, or undefined once spent. */
function take<T>(fault: Countdown<T> | undefined): T | undefined {
  if (!fault || fault.remaining === 0) return undefined;
  fault.remaining -= 1;
  return fault.what;
}

export class FaultTable implements KhaltiFaults {
  private readonly pending = new Set<string>();
  private lookupFailure: Countdown<LookupFailure> | undefined;
  private refundFailure: Countdown<{ afterEffect: boolean }> | undefined;

  lookupPending(pidx: string): void {
    this.pending.add(pidx);
  }

  lookupFails(times: number, how: LookupFailure = "http-500"): void {
    if (how !== "http-500" && how !== "drop") {
      throw new RangeError(`A lookup fails "http-500" or "drop", not "${how}"`);
    }
    this.lookupFailure = countdown(times, how);
  }

  refundFails(times: number, options: { afterEffect?: boolean } = {}): void {
    this.refundFailure = countdown(times, { afterEffect: options.afterEffect ?? false });
  }

  clear(): void {
    this.pending.clear();
    this.lookupFailure = undefined;
    this.refundFailure = undefined;
  }

  isPending(pidx: string): boolean {
    return this.pending.has(pidx);
  }

  takeLookupFailure(): LookupFailure | undefined {
    return take(this.lookupFailure);
  }

  takeRefundFailure(): { afterEffect: boolean } | undefined {
    return take(this.refundFailure);
  }
}
