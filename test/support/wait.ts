import { setTimeout as sleep } from "node:timers/promises";

/** Waits until `check` holds (polled every 50 ms); returns how long that took. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await sleep(50);
  }
  return Date.now() - started;
}

/** The HTTP status of a request, 0 when nothing answered. */
export async function httpStatus(url: string, init?: RequestInit): Promise<number> {
  try {
    const response = await fetch(url, init);
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** Whether a process with this PID still runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
