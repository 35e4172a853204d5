// Injected misbehaviour: which lookups answer Pending, and how many lookups and refunds fail
// before the sandbox behaves again.

import { type Countdown, countdown, take } from "../payment-fakes/countdown.js";
import type { KhaltiFaults, LookupFailure } from "./types.js";

export class FaultTable implements KhaltiFaults {
  private readonly pending = new Set<string>();
  private lookupFailure: Countdown<LookupFailure> | undefined;
  private refundFailure: Countdown<{ afterEffect: boolean; how: LookupFailure }> | undefined;

  lookupPending(pidx: string): void {
    this.pending.add(pidx);
  }

  lookupFails(times: number, how: LookupFailure = "http-500"): void {
    this.lookupFailure = countdown(times, failing(how));
  }

  refundFails(times: number, options: { afterEffect?: boolean; how?: LookupFailure } = {}): void {
    this.refundFailure = countdown(times, {
      afterEffect: options.afterEffect ?? false,
      how: failing(options.how ?? "http-500"),
    });
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

  takeRefundFailure(): { afterEffect: boolean; how: LookupFailure } | undefined {
    return take(this.refundFailure);
  }
}

function failing(how: LookupFailure): LookupFailure {
  if (how !== "http-500" && how !== "drop") {
    throw new RangeError(`A call fails "http-500" or "drop", not "${how}"`);
  }
  return how;
}
