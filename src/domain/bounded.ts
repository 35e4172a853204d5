// Bounded parallelism without a dependency: at most `limit` tasks in flight at once.

/**
 * Maps `items` through `task`, running at most `limit` tasks at a time; the results keep the
 * order of `items`. Like `Promise.all` it rejects with the first failure, and starts no new
 * task after one has failed (tasks already running are left to finish).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!(Number.isInteger(limit) && limit >= 1)) {
    throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
