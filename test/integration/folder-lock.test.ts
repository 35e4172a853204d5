// One process per folder (folder-lock.ts), with the parts two real processes cannot show on one
// machine: a holder on another machine (a shared volume) is alive while it beats, whatever the
// clocks say; a dead holder's lock is taken over; a holder whose file was taken over is told.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FolderInUseError, lockFolder } from "../../src/adapters/folder-lock.js";

const FILE = "test.lock";
const inUse = (folder: string, pid: string) => `${folder} is held by pid ${pid}`;
/** Short beats, so that a few of them pass quickly. */
const fast = { inUse, beatMs: 40, staleBeats: 3 };

describe("a folder's lock", () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), "folder-lock-"));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));
  const content = () => readFileSync(join(folder, FILE), "utf8");

  it("is refused to another machine while its holder beats, and taken once it is released", async () => {
    const held = await lockFolder(folder, FILE, { ...fast, host: "machine-a" });
    expect(content()).toMatch(new RegExp(`^${process.pid}@machine-a \\d+\\n$`));
    await expect(lockFolder(folder, FILE, { ...fast, host: "machine-b" })).rejects.toBeInstanceOf(
      FolderInUseError,
    );
    await held.release();
    const next = await lockFolder(folder, FILE, { ...fast, host: "machine-b" });
    expect(content()).toMatch(/@machine-b /);
    await next.release();
  });

  it("takes over a lock left by another machine that stopped beating, or by a dead pid here", async () => {
    writeFileSync(join(folder, FILE), "4242@machine-gone 17\n");
    const taken = await lockFolder(folder, FILE, { ...fast, host: "machine-b" });
    expect(content()).toMatch(/@machine-b /);
    await taken.release();
    // A pid of this machine that is not running (pid numbers stay far below this).
    writeFileSync(join(folder, FILE), `4194303@${hostname()} 0\n`);
    const started = Date.now();
    const here = await lockFolder(folder, FILE, { ...fast, beatMs: 60_000 });
    // Taken at once: this machine's holder is asked directly, not watched.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(content()).toMatch(new RegExp(`^${process.pid}@${hostname()} `));
    await here.release();
  });

  it("tells a holder whose file another process replaced, and leaves that one's file alone", async () => {
    const lost = vi.fn();
    const held = await lockFolder(folder, FILE, { ...fast, host: "machine-a", onLost: lost });
    writeFileSync(join(folder, FILE), "4243@machine-c 0\n");
    await vi.waitFor(() => expect(lost).toHaveBeenCalledTimes(1), { timeout: 2_000 });
    await held.release();
    expect(content()).toBe("4243@machine-c 0\n");
  });
});
