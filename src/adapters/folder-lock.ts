// One process per folder: a lock file naming its holder (pid and host), created atomically
// (O_EXCL), so that of two processes started on one folder only one holds it. A holder on this
// machine is alive while its pid is; one on another machine (two containers sharing a volume)
// while it keeps beating: it rewrites the file every beat, and a newcomer watches the file for a
// few beats before taking the folder over (no clocks compared, so a skewed one changes nothing).
// A lock left by a holder that died is taken over (replaced in one rename); a holder that finds
// the file no longer its own has lost the folder and is told (`onLost`).
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Thrown when a live process holds the folder. */
export class FolderInUseError extends Error {
  constructor(
    message: string,
    /** The holder's pid, as its lock file says. */
    readonly holderPid: string,
  ) {
    super(message);
    this.name = "FolderInUseError";
  }
}

export interface FolderLockOptions {
  /** The refusal's message, naming the folder and the holder's pid. */
  inUse: (folder: string, pid: string) => string;
  /** How often the holder rewrites its lock file (5 s). */
  beatMs?: number;
  /** Beats without a change after which another machine's holder is taken for dead (3). */
  staleBeats?: number;
  /** The file is no longer this holder's: another process took the folder over. */
  onLost?: () => void;
  /** This machine's name (tests stand in for another machine). */
  host?: string;
}

export interface FolderLock {
  /** Stops beating and removes the file, if it is still this holder's. */
  release(): Promise<void>;
}

const BEAT_MS = 5_000;
const STALE_BEATS = 3;

interface Holder {
  text: string;
  pid: string;
  host: string;
}

export async function lockFolder(
  folder: string,
  file: string,
  options: FolderLockOptions,
): Promise<FolderLock> {
  const path = join(folder, file);
  const host = options.host ?? hostname();
  const beatMs = options.beatMs ?? BEAT_MS;
  const me = `${process.pid}@${host}`;
  let beat = 0;
  const content = () => `${me} ${beat}\n`;
  const staleMs = beatMs * (options.staleBeats ?? STALE_BEATS);
  await mkdir(folder, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(path, content(), { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw error;
    }
    const holder = await holderOf(path);
    if (holder === null) continue;
    if (await alive(holder, path, host, staleMs)) {
      throw new FolderInUseError(options.inUse(folder, holder.pid), holder.pid);
    }
    if (await takeOver(path, holder, content(), host, staleMs)) break;
    // Another newcomer is taking it over: its lock is met at the next turn.
    await sleep(20);
  }
  let written = content();
  let lost = false;
  /** The beat under way: one at a time (a slow disk never has two compare each other's write). */
  let beating: Promise<void> | undefined;
  const timer = setInterval(() => {
    beating ??= (async () => {
      const now = await holderOf(path).catch(() => undefined);
      // A beat the file system did not answer says nothing: the next one asks again.
      if (now === undefined || lost) return;
      if (now?.text !== written) {
        lost = true;
        clearInterval(timer);
        options.onLost?.();
        return;
      }
      beat++;
      written = content();
      await replace(path, written).catch(() => undefined);
    })().finally(() => {
      beating = undefined;
    });
  }, beatMs);
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      await beating;
      if (lost) return;
      if ((await holderOf(path).catch(() => null))?.text === written) {
        await rm(path, { force: true });
      }
    },
  };
}

/** Who holds the file; null when there is none (released meanwhile). */
async function holderOf(path: string): Promise<Holder | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const who = text.trim().split(" ")[0] ?? "";
  const at = who.indexOf("@");
  return { text, pid: at > 0 ? who.slice(0, at) : "", host: at > 0 ? who.slice(at + 1) : "" };
}

/**
 * This machine's holder: alive while its pid is (this very pid is a leftover: a container
 * restarted with the pid and name it had). Another machine's, or one that cannot be read (torn
 * by a crash): alive while its file changes within `staleMs`.
 */
async function alive(holder: Holder, path: string, host: string, staleMs: number) {
  const pid = Number(holder.pid);
  if (holder.host === host && Number.isSafeInteger(pid) && pid > 0) {
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  const steps = 10;
  for (let step = 0; step < steps; step++) {
    await sleep(staleMs / steps);
    const now = await holderOf(path);
    if (now === null) return false;
    if (now.text !== holder.text) return true;
  }
  return false;
}

/**
 * A lock left by a dead holder replaced by `mine`, by one newcomer only: the one that makes the
 * claim file (O_EXCL, held for an instant) replaces it, if it is still the one found dead (in
 * one rename: a newcomer meets a file, never a gap). False when another newcomer claims it.
 */
async function takeOver(
  path: string,
  dead: Holder,
  mine: string,
  host: string,
  staleMs: number,
): Promise<boolean> {
  const claim = `${path}.takeover`;
  try {
    await writeFile(claim, mine, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // A claim left by a newcomer that died while taking it over is cleared.
    const other = await holderOf(claim);
    if (other !== null && !(await alive(other, claim, host, staleMs))) {
      if ((await holderOf(claim))?.text === other.text) await rm(claim, { force: true });
    }
    return false;
  }
  try {
    if ((await holderOf(path))?.text !== dead.text) return false;
    await replace(path, mine);
    return true;
  } finally {
    await rm(claim, { force: true });
  }
}

/** The file holds `text` now, written whole (a temporary file renamed over it). */
async function replace(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}
