// Injected misbehaviour: which lookups answer Pending, and how many lookups and refunds fail
// before the sandbox behaves again.

import { type Countdown, countdown, take } from "../payment-fakes/countdown.js";
import type { KhaltiFaults, LookupFailure } from "./types.js";

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
