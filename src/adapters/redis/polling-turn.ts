// Whose turn it is to poll Telegram: one instance holds a short lease and keeps renewing it;
// the others ask every few seconds and take it once it lapsed (its holder died) or was given
// back (its holder stopped). Telegram allows one getUpdates per bot at a time.
//
// The lease names its holder's machine and process. A bot started again where its previous
// process died (killed, out of memory) sees that the holder was itself and polls at once,
// instead of waiting for the dead process's lease to lapse; an instance elsewhere still waits.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import { RELEASE } from "./lease.js";

/** Renews our lease; takes it again when it is gone (the store came back empty). */
const KEEP = `
local holder = redis.call("GET", KEYS[1])
if holder == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
if not holder then redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2]) return 1 end
return 0`;

/** Takes over the lease from ARGV[1], if it still holds it. */
const TAKE_OVER = `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3]) return 1
end
return 0`;

interface Holder {
  host: string;
  /** The kernel's boot: two machines may share a host name, never a boot id. */
  boot: string;
  pid: number;
  id: string;
}

export class RedisPollingTurn {
  private readonly holder: Holder = {
    host: hostname(),
    boot: bootId(),
    pid: process.pid,
    id: randomUUID(),
  };
  private readonly token = JSON.stringify(this.holder);
  /** Only the first look at the lease, at start, may find our own previous process. */
  private looked = false;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly leaseMs: number,
  ) {}

  /** Takes the turn when nobody holds it, or when its holder was this bot's previous process. */
  async take(): Promise<boolean> {
    if ((await this.redis.set(this.key, this.token, "PX", this.leaseMs, "NX")) === "OK") {
      return true;
    }
    if (this.looked) return false;
    const current = await this.redis.get(this.key);
    this.looked = true;
    if (current === null || !this.isOurPreviousProcess(current)) return false;
    return (await this.redis.eval(TAKE_OVER, 1, this.key, current, this.token, this.leaseMs)) === 1;
  }

  /** Renews the turn; false when somebody else holds it now. */
  async keep(): Promise<boolean> {
    return (await this.redis.eval(KEEP, 1, this.key, this.token, this.leaseMs)) === 1;
  }

  async give(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }

  /**
   * A holder on this machine whose process is gone, or whose process id is now ours (a
   * container started again numbers its processes afresh). A live process, or any doubt,
   * and the lease is left to lapse.
   */
  private isOurPreviousProcess(lease: string): boolean {
    const holder = parsed(lease);
    const here = this.holder;
    if (!holder || here.boot === "" || holder.host !== here.host || holder.boot !== here.boot) {
      return false;
    }
    return holder.pid === process.pid || !isAlive(holder.pid);
  }
}

function parsed(lease: string): Holder | null {
  try {
    const value: unknown = JSON.parse(lease);
    if (typeof value !== "object" || value === null) return null;
    const { host, boot, pid } = value as Partial<Holder>;
    return typeof host === "string" && typeof boot === "string" && Number.isInteger(pid)
      ? (value as Holder)
      : null;
  } catch {
    return null;
  }
}

/** Signal 0 only asks: ESRCH means no such process; EPERM, one of another user's. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    // Not Linux: the machine cannot be told for sure, so the lease is left to lapse.
    return "";
  }
}
