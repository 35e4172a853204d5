// Failures a test queued with failNext(): the next calls of a method answer with the given
// error instead of running.

import { ApiError } from "./api-error.js";
import type { ForcedError } from "./types.js";

export class ForcedFailures {
  private readonly queues = new Map<string, ForcedError[]>();

  add(method: string, error: ForcedError, times: number): void {
    if (!(Number.isInteger(times) && times > 0)) {
      throw new RangeError(`failNext times must be a positive integer, got ${times}`);
    }
    if (
      !(Number.isInteger(error.error_code) && error.error_code >= 400 && error.error_code <= 599)
    ) {
      throw new RangeError(
        `failNext error_code must be an HTTP error status, got ${error.error_code}`,
      );
    }
    const queue = this.queues.get(method) ?? [];
    queue.push(...Array.from({ length: times }, () => error));
    this.queues.set(method, queue);
  }

  take(method: string): ApiError | undefined {
    const error = this.queues.get(method)?.shift();
    return error && new ApiError(error.error_code, error.description, error.parameters);
  }
}
