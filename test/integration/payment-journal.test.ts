// The payment journal on a real file system: appended and flushed before it resolves, read back
// by the next process in order, settled (compacted, then removed), a torn last line ignored.
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FilePaymentJournal } from "../../src/adapters/payments/journal.js";
import type { ReceivedPayment } from "../../src/domain/payment.js";

const payment = (n: number): ReceivedPayment => ({
  method: "telegram",
  purchaseId: `purchase-${n}`,
  currency: "NPR",
  minor: 70_000 + n,
  charge: { id: `charge-${n}`, providerId: n % 2 ? `prov-${n}` : null, at: 1_700_000_000_000 + n },
});

const quiet = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };

describe("FilePaymentJournal", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    file = join(dir, "data", "payments.journal");
    vi.clearAllMocks();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("appends one line per confirmation, flushed to disk before it resolves", async () => {
    // Every FileHandle shares one prototype: its sync is watched, and what was on disk then.
    const probe = await open(join(dir, "probe"), "w");
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const onDisk: string[] = [];
    const sync = vi.spyOn(prototype, "sync").mockImplementation(async function (this: FileHandle) {
      onDisk.push(existsSync(file) ? readFileSync(file, "utf8") : "");
    });
    const journal = new FilePaymentJournal(join(dir, "data"), quiet);
    await journal.append(payment(1));
    expect(sync).toHaveBeenCalled();
    expect(onDisk[0]).toBe(`${JSON.stringify(payment(1))}\n`);
    await journal.append(payment(2));
    expect(readFileSync(file, "utf8").split("\n")).toEqual([
      JSON.stringify(payment(1)),
      JSON.stringify(payment(2)),
      "",
    ]);
  });

  it("is read back in order by the next process, and is empty when there is none", async () => {
    expect(await new FilePaymentJournal(join(dir, "data"), quiet).read()).toEqual([]);
    const first = new FilePaymentJournal(join(dir, "data"), quiet);
    for (const n of [1, 2, 3]) await first.append(payment(n));
    const next = new FilePaymentJournal(join(dir, "data"), quiet);
    expect(await next.read()).toEqual([payment(1), payment(2), payment(3)]);
  });

  it("drops what the ledger took, keeps what was appended meanwhile, and is removed once empty", async () => {
    const journal = new FilePaymentJournal(join(dir, "data"), quiet);
    for (const n of [1, 2, 3]) await journal.append(payment(n));
    await Promise.all([
      journal.settle(new Set(["charge-1", "charge-3"])),
      journal.append(payment(4)),
    ]);
    expect(await journal.read()).toEqual([payment(2), payment(4)]);
    expect(existsSync(`${file}.tmp`)).toBe(false);
    await journal.settle(new Set(["charge-2", "charge-4"]));
    expect(existsSync(file)).toBe(false);
    expect(await journal.read()).toEqual([]);
  });

  it("ignores a torn last line, and starts the next entry on a line of its own", async () => {
    const journal = new FilePaymentJournal(join(dir, "data"), quiet);
    await journal.append(payment(1));
    appendFileSync(file, JSON.stringify(payment(2)).slice(0, 40));
    expect(await journal.read()).toEqual([payment(1)]);
    await journal.append(payment(3));
    expect(await new FilePaymentJournal(join(dir, "data"), quiet).read()).toEqual([
      payment(1),
      payment(3),
    ]);
    // Only a last line may be torn: the one now in the middle is said.
    expect(quiet.error).toHaveBeenCalledWith(
      { line: 2 },
      "an unreadable line in the payment journal skipped",
    );
  });

  it("fails to append where it cannot write, rather than pretending", async () => {
    const notADirectory = join(dir, "data");
    writeFileSync(notADirectory, "");
    const journal = new FilePaymentJournal(notADirectory, quiet);
    await expect(journal.append(payment(1))).rejects.toThrow();
    // A failure does not block the operations after it, once the directory can be made.
    rmSync(notADirectory);
    await journal.append(payment(2));
    expect(await journal.read()).toEqual([payment(2)]);
  });
});
