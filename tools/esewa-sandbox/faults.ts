// Injected misbehaviour: which status checks answer AMBIGUOUS or for any amount, how many fail
// or answer late,
// whether they are held unanswered, and how many success redirects carry a forged signature.

import { setTimeout as sleep } from "node:timers/promises";
import { type Countdown, countdown, take } from "../payment-fakes/countdown.js";
import { type EsewaFaults, STATUS_FAILURES, type StatusFailure } from "./types.js";

export class FaultTable implements EsewaFaults {
  private readonly ambiguous = new Set<string>();
  private readonly anyAmount = new Set<string>();
  private statusFailure: Countdown<StatusFailure> | undefined;
  private slowness: Countdown<number> | undefined;
  private forgery: Countdown<true> | undefined;
  private hold: { released: Promise<void>; release: () => void } | undefined;
  private held = 0;

  statusAmbiguous(transactionUuid: string): void {
    this.ambiguous.add(transactionUuid);
  }

  statusAnyAmount(transactionUuid: string): void {
    this.anyAmount.add(transactionUuid);
  }

  statusFails(times: number, how: StatusFailure = "http-500"): void {
    if (!STATUS_FAILURES.includes(how)) {
      throw new RangeError(`A status check fails ${STATUS_FAILURES.join(", ")}, not "${how}"`);
    }
    this.statusFailure = countdown(times, how);
  }

  statusSlow(ms: number, times: number = Number.POSITIVE_INFINITY): void {
    if (!(Number.isInteger(ms) && ms > 0)) {
      throw new RangeError(`A delay is a positive integer of milliseconds, got ${ms}`);
    }
    this.slowness = countdown(times, ms);
  }

  holdStatus(): void {
    if (this.hold) return;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.hold = { released, release };
  }

  releaseStatus(): void {
    this.hold?.release();
    this.hold = undefined;
  }

  get heldStatusChecks(): number {
    return this.held;
  }

  forgeRedirect(times = 1): void {
    this.forgery = countdown(times, true);
  }

  clear(): void {
    this.ambiguous.clear();
    this.anyAmount.clear();
    this.statusFailure = undefined;
    this.slowness = undefined;
    this.forgery = undefined;
    this.releaseStatus();
  }

  isAmbiguous(transactionUuid: string): boolean {
    return this.ambiguous.has(transactionUuid);
  }

  answersAnyAmount(transactionUuid: string): boolean {
    return this.anyAmount.has(transactionUuid);
  }

  /** Waits as the faults say before a status check is answered: held, then slow. */
  async delayStatus(): Promise<void> {
    const hold = this.hold;
    if (hold) {
      this.held += 1;
      await hold.released.finally(() => {
        this.held -= 1;
      });
    }
    const ms = take(this.slowness);
    // Unreferenced: a slow answer never keeps a closing process alive.
    if (ms !== undefined) await sleep(ms, undefined, { ref: false });
  }

  takeStatusFailure(): StatusFailure | undefined {
    return take(this.statusFailure);
  }

  takeForgery(): boolean {
    return take(this.forgery) === true;
  }
}
