// The domain's PaymentJournal as an append-only file in DATA_DIR: one JSON line per payment
// confirmation the ledger could not take, flushed to disk (fsync) before `append` resolves.
// Settling rewrites it without what the ledger took (a temporary file, flushed, renamed over
// it) and removes it once empty. DATA_DIR is one instance's own, as for the embedded ledger.
import { type FileHandle, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PaymentJournal, ReceivedPayment } from "../../domain/payment.js";
import type { Log } from "../../domain/ports.js";
import { PAYMENT_METHODS } from "../../domain/purchase.js";

const FILE = "payments.journal";

export class FilePaymentJournal implements PaymentJournal {
  private readonly path: string;
  /** One operation at a time: a rewrite never drops an entry appended meanwhile. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly directory: string,
    private readonly log: Log,
  ) {
    this.path = join(directory, FILE);
  }

  append(payment: ReceivedPayment): Promise<void> {
    return this.serially(async () => {
      await mkdir(this.directory, { recursive: true });
      const file = await open(this.path, "a+");
      let created = false;
      try {
        const { size } = await file.stat();
        created = size === 0;
        // After a line torn by a crash, the next entry starts on a line of its own.
        const lead = !created && (await lastByte(file, size)) !== "\n" ? "\n" : "";
        await file.write(`${lead}${JSON.stringify(payment)}\n`);
        await file.sync();
      } finally {
        await file.close();
      }
      // A new file's name must survive a crash as well as its content.
      if (created) await syncDirectory(this.directory);
    });
  }

  read(): Promise<ReceivedPayment[]> {
    return this.serially(async () => ((await this.entries()) ?? []).map(({ payment }) => payment));
  }

  settle(chargeIds: ReadonlySet<string>): Promise<void> {
    return this.serially(async () => {
      const entries = await this.entries();
      if (entries === null) return;
      const left = entries.filter(({ payment }) => !chargeIds.has(payment.charge.id));
      if (left.length === entries.length && entries.length > 0) return;
      if (left.length === 0) {
        await rm(this.path, { force: true });
      } else {
        const temporary = `${this.path}.tmp`;
        const file = await open(temporary, "w");
        try {
          await file.write(left.map(({ line }) => `${line}\n`).join(""));
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(temporary, this.path);
      }
      await syncDirectory(this.directory);
    });
  }

  /** null when there is no journal. */
  private async entries(): Promise<{ payment: ReceivedPayment; line: string }[] | null> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    const lines = text.split("\n");
    const entries: { payment: ReceivedPayment; line: string }[] = [];
    lines.forEach((line, index) => {
      if (line === "") return;
      const payment = parsed(line);
      if (payment) entries.push({ payment, line });
      // Only the last line can be torn by a crash (its append never resolved); any other is not.
      else if (index < lines.length - 1) {
        this.log.error({ line: index + 1 }, "an unreadable line in the payment journal skipped");
      }
    });
    return entries;
  }

  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.last.then(operation, operation);
    this.last = result.catch(() => undefined);
    return result;
  }
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

/** A confirmation as appended, or null for a torn or foreign line. */
function parsed(line: string): ReceivedPayment | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const payment = value as Partial<ReceivedPayment> | null;
  const charge = payment?.charge;
  const valid =
    payment !== null &&
    (PAYMENT_METHODS as readonly unknown[]).includes(payment.method) &&
    typeof payment.purchaseId === "string" &&
    typeof payment.currency === "string" &&
    Number.isSafeInteger(payment.minor) &&
    typeof charge?.id === "string" &&
    (charge.providerId === null || typeof charge.providerId === "string") &&
    typeof charge.at === "number";
  return valid ? (payment as ReceivedPayment) : null;
}
