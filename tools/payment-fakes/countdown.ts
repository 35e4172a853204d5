// A fault injected for the next N uses (or for ever), shared by the payment systems' sandboxes.

export interface Countdown<T> {
  what: T;
  remaining: number;
}

export function countdown<T>(times: number, what: T): Countdown<T> {
  if (!(Number.isInteger(times) && times > 0) && times !== Number.POSITIVE_INFINITY) {
    throw new RangeError(`Fault times must be a positive integer, got ${times}`);
  }
  return { what, remaining: times };
}

/** Counts one use of the fault; returns what it does, or undefined once spent. */
export function take<T>(fault: Countdown<T> | undefined): T | undefined {
  if (!fault || fault.remaining === 0) return undefined;
  fault.remaining -= 1;
  return fault.what;
}
