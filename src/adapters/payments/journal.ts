// The domain's PaymentJournal as an append-only file (PAYMENT_JOURNAL_DIR, DATA_DIR by default):
// one JSON line per payment confirmation the ledger could not take (one per method and charge
// id: a repeat adds nothing), flushed to disk (fsync) before `append` resolves. Each line
// carries its MAC (HMAC-SHA256 under a key that is not in the folder), so that a line edited,
// forged or written by hand is never believed. Such a line, like one that cannot be read
// (garbled, torn by a crash, or written before lines had a MAC), is never replayed and never
// deleted: it is moved to the quarantine file beside the journal (append-only, flushed before
// the journal loses it) for a person. Settling rewrites the
// journal without what the ledger took (a temporary file, flushed, renamed over it) and removes
// it once empty. Payments the ledger refuses even to set aside go to a file of their own. The
// folder is one process's own (its lock file, folder-lock.ts): two processes on it would replay
// the same lines (each into its own embedded ledger: paid twice) and rewrite the file under
// each other (a line lost). A second one refuses to start rather than take a subfolder of its
// own: a subfolder left by a replica that is gone would hold payments nobody replays.
import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { type FileHandle, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { JournalContent, PaymentJournal, ReceivedPayment } from "../../domain/payment.js";
import type { Log } from "../../domain/ports.js";
import { PAYMENT_METHODS } from "../../domain/purchase.js";
import { FolderInUseError, type FolderLock, lockFolder } from "../folder-lock.js";

const FILE = "payments.journal";
/** Lines that cannot be believed, as they were, for a person. */
export const QUARANTINE_FILE = "payments.journal.quarantine";
/** Payments the ledger refused even to set aside, for a person. */
export const SET_ASIDE_FILE = "payments.set-aside";
/** The folder's lock: its one process (pid and host). */
const LOCK_FILE = "payments.journal.lock";
/** What a line's MAC covers besides the payment: this file's purpose and format. */
const MAC_LABEL = "topup-bot payments.journal v1\n";

export class FilePaymentJournal implements PaymentJournal {
  private readonly path: string;
  /** One operation at a time: a rewrite never drops an entry appended meanwhile. */
  private last: Promise<unknown> = Promise.resolve();
  /** Lines moved to the quarantine since the last read. */
  private quarantined = 0;
  /** The folder held by this process (taken by `open`, or by the first operation after). */
  private lock: Promise<FolderLock> | undefined;
  /** Another process took the folder over: nothing more is written here. */
  private lost = false;

  /** @param key the MAC's key (PAYMENT_JOURNAL_KEY, or derived from BOT_TOKEN): never logged */
  constructor(
    private readonly directory: string,
    private readonly key: Uint8Array,
    private readonly log: Log,
  ) {
    this.path = join(directory, FILE);
  }

  /**
   * At start, before any confirmation can come: the folder is taken for this process. Throws
   * FolderInUseError when a live process holds it (the start stops). A folder that cannot be
   * written now (a full disk, a file in its place) is no refusal: said, and taken by the first
   * operation that can write (until then the journal keeps nothing, and a confirmation is not
   * acknowledged).
   */
  async open(): Promise<void> {
    try {
      await this.held();
    } catch (error) {
      if (error instanceof FolderInUseError) throw error;
      this.log.error(
        { dir: this.directory, reason: (error as NodeJS.ErrnoException).code ?? String(error) },
        "the payment journal's folder cannot be locked now: tried again at its first use",
      );
    }
  }

  /** At the end of a stop: the folder is left for the next process. */
  async close(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await (await lock?.catch(() => undefined))?.release();
  }

  /** The folder's lock, taken once (again after a failure that was not a refusal). */
  private held(): Promise<FolderLock> {
    if (this.lost) {
      return Promise.reject(new Error("another process took the payment journal's folder over"));
    }
    this.lock ??= lockFolder(this.directory, LOCK_FILE, {
      inUse: (folder, pid) =>
        `PAYMENT_JOURNAL_DIR ${folder} is in use by another bot process (pid ${pid}): the payment journal serves one process only; give each instance a folder of its own`,
      onLost: () => {
        this.lost = true;
        this.log.error(
          { dir: this.directory },
          "another process took the payment journal's folder over: this one writes nothing more there",
        );
      },
    });
    const taking = this.lock;
    taking.catch(() => {
      if (this.lock === taking) this.lock = undefined;
    });
    return taking;
  }

  /** Once per payment (method and charge id): a repeat finds it kept and adds nothing. */
  append(payment: ReceivedPayment): Promise<void> {
    return this.serially(async () => {
      const kept = await this.entries();
      if (kept?.some((entry) => samePayment(entry.payment, payment))) return;
      await appendDurably(this.directory, this.path, `${JSON.stringify(this.sealed(payment))}\n`);
    });
  }

  async read(): Promise<JournalContent> {
    try {
      return await this.serially(async () => {
        const payments = ((await this.entries()) ?? []).map(({ payment }) => payment);
        const quarantined = this.quarantined;
        this.quarantined = 0;
        return { payments, quarantined };
      });
    } catch (error) {
      // A folder that cannot be locked (nor made) and holds no journal: nothing to replay.
      if (error instanceof FolderInUseError || this.lost || existsSync(this.path)) throw error;
      return { payments: [], quarantined: 0 };
    }
  }

  settle(chargeIds: ReadonlySet<string>): Promise<void> {
    return this.serially(async () => {
      const entries = await this.entries();
      if (entries === null) return;
      const left = entries.filter(({ payment }) => !chargeIds.has(payment.charge.id));
      if (left.length === entries.length && entries.length > 0) return;
      await this.rewrite(left.map(({ line }) => line));
    });
  }

  setAside(payment: ReceivedPayment, reason: string): Promise<boolean> {
    return this.serially(async () => {
      const path = join(this.directory, SET_ASIDE_FILE);
      const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return "";
        throw error;
      });
      const seen = text.split("\n").some((line) => {
        const known = readJson(line) as { payment?: Partial<ReceivedPayment> } | null;
        return (
          known?.payment?.method === payment.method &&
          known.payment.charge?.id === payment.charge.id
        );
      });
      if (seen) return false;
      const line = JSON.stringify({ at: new Date().toISOString(), reason, payment });
      await appendDurably(this.directory, path, `${line}\n`);
      return true;
    });
  }

  /** The line as written: the payment, then its MAC. */
  private sealed(payment: ReceivedPayment): ReceivedPayment & { mac: string } {
    return { ...payment, mac: this.macOf(payment) };
  }

  private macOf(payment: object): string {
    return createHmac("sha256", this.key)
      .update(MAC_LABEL)
      .update(JSON.stringify(payment))
      .digest("base64url");
  }

  /** The payment a line holds when it can be believed; otherwise why not. */
  private believed(line: string): ReceivedPayment | string {
    const value = readJson(line);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return "unreadable";
    const { mac, ...payment } = value as { mac?: unknown };
    if (typeof mac !== "string") return "no MAC";
    const expected = Buffer.from(this.macOf(payment));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return "MAC fails";
    }
    return parsed(payment) ?? "not a payment";
  }

  /**
   * The entries that can be believed; null when there is no journal. Any other line is first
   * appended to the quarantine (flushed), then left out of the journal.
   */
  private async entries(): Promise<{ payment: ReceivedPayment; line: string }[] | null> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      // None, or none can be: a file stands where its folder should be.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw error;
    }
    const lines = text.split("\n");
    const entries: { payment: ReceivedPayment; line: string }[] = [];
    const doubtful: { line: string; number: number; why: string }[] = [];
    lines.forEach((line, index) => {
      if (line === "") return;
      const payment = this.believed(line);
      if (typeof payment !== "string") entries.push({ payment, line });
      else {
        // Only the last line can be torn by a crash (its append never resolved).
        const why = index === lines.length - 1 && payment === "unreadable" ? "torn" : payment;
        doubtful.push({ line, number: index + 1, why });
      }
    });
    if (doubtful.length > 0) await this.quarantine(doubtful, entries);
    return entries;
  }

  private async quarantine(
    doubtful: { line: string; number: number; why: string }[],
    believed: { line: string }[],
  ): Promise<void> {
    const path = join(this.directory, QUARANTINE_FILE);
    await appendDurably(this.directory, path, doubtful.map(({ line }) => `${line}\n`).join(""));
    for (const { number, why } of doubtful) {
      this.log.error({ line: number, why }, "a payment journal line moved to the quarantine");
    }
    await this.rewrite(believed.map(({ line }) => line));
    this.quarantined += doubtful.length;
  }

  /** The journal holds exactly these lines now; removed when none. */
  private async rewrite(lines: string[]): Promise<void> {
    if (lines.length === 0) {
      await rm(this.path, { force: true });
    } else {
      const temporary = `${this.path}.tmp`;
      const file = await open(temporary, "w");
      try {
        await file.write(lines.map((line) => `${line}\n`).join(""));
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, this.path);
    }
    await syncDirectory(this.directory);
  }

  /** One at a time, and only while this process holds the folder. */
  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const locked = async () => {
      await this.held();
      return operation();
    };
    const result = this.last.then(locked, locked);
    this.last = result.catch(() => undefined);
    return result;
  }
}

/**
 * Appends `text` and flushes it before resolving; after a line torn by a crash the text starts
 * on a line of its own, and a new file's name is flushed too.
 */
async function appendDurably(directory: string, path: string, text: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  const file = await open(path, "a+");
  let created = false;
  try {
    const { size } = await file.stat();
    created = size === 0;
    const lead = !created && (await lastByte(file, size)) !== "\n" ? "\n" : "";
    await file.write(`${lead}${text}`);
    await file.sync();
  } finally {
    await file.close();
  }
  // A new file's name must survive a crash as well as its content.
  if (created) await syncDirectory(directory);
}

async function lastByte(file: FileHandle, size: number): Promise<string> {
  const { buffer } = await file.read(Buffer.alloc(1), 0, 1, size - 1);
  return buffer.toString("utf8");
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function readJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** The same payment: one method, one charge id (what the ledger keeps once). */
const samePayment = (a: ReceivedPayment, b: ReceivedPayment): boolean =>
  a.method === b.method && a.charge.id === b.charge.id;

/** A confirmation as appended, or null for anything else. */
function parsed(value: unknown): ReceivedPayment | null {
  const payment = value as Partial<ReceivedPayment> | null;
  const charge = payment?.charge;
  const valid =
    payment !== null &&
    (PAYMENT_METHODS as readonly unknown[]).includes(payment.method) &&
    typeof payment.purchaseId === "string" &&
    typeof payment.currency === "string" &&
    // Any number: an impossible amount is the domain's to set aside, not the journal's to drop.
    Number.isFinite(payment.minor) &&
    typeof charge?.id === "string" &&
    (charge.providerId === null || typeof charge.providerId === "string") &&
    typeof charge.at === "number" &&
    (payment.payer == null || Number.isSafeInteger(payment.payer)) &&
    // Given back in part outside the bot: kept as it was said (it must never pay for anything).
    (payment.refundedOutside === undefined ||
      (typeof payment.refundedOutside === "object" &&
        payment.refundedOutside !== null &&
        (payment.refundedOutside.minor === null ||
          Number.isSafeInteger(payment.refundedOutside.minor))));
  return valid ? (payment as ReceivedPayment) : null;
}

/**
 * Whether two folders (made or not yet) are on one file system: the nearest existing folder
 * of each is asked. False when either cannot be asked.
 */
export function onOneFileSystem(first: string, second: string): boolean {
  try {
    return nearestExisting(first).dev === nearestExisting(second).dev;
  } catch {
    return false;
  }
}

function nearestExisting(path: string) {
  let at = resolve(path);
  for (;;) {
    try {
      return statSync(at);
    } catch (error) {
      const parent = dirname(at);
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || parent === at) throw error;
      at = parent;
    }
  }
}
