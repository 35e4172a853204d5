// The payment journal on a real file system: appended and flushed before it resolves, read back
// by the next process in order, settled (compacted, then removed). Every line carries a MAC: a
// line edited, forged, written before MACs, garbled or torn is never believed and never lost,
// but moved to the quarantine beside the journal (flushed before the journal loses it).
import { createHmac } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  FilePaymentJournal,
  onOneFileSystem,
  QUARANTINE_FILE,
  SET_ASIDE_FILE,
} from "../../src/adapters/payments/journal.js";
import { type AppOptions, createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { ReceivedPayment } from "../../src/domain/payment.js";
import { captureLogs } from "../support/log-capture.js";

const payment = (n: number): ReceivedPayment => ({
  method: "telegram",
  purchaseId: `purchase-${n}`,
  currency: "NPR",
  minor: 70_000 + n,
  charge: { id: `charge-${n}`, providerId: n % 2 ? `prov-${n}` : null, at: 1_700_000_000_000 + n },
});

const KEY = new Uint8Array(Buffer.from("k".repeat(32)));
const OTHER_KEY = new Uint8Array(Buffer.from("x".repeat(32)));

/** A line as the journal writes it, computed here independently of its code. */
const lineOf = (value: ReceivedPayment, key: Uint8Array = KEY) => {
  const mac = createHmac("sha256", key)
    .update("topup-bot payments.journal v1\n")
    .update(JSON.stringify(value))
    .digest("base64url");
  return JSON.stringify({ ...value, mac });
};

const quiet = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };

describe("FilePaymentJournal", () => {
  let dir: string;
  let folder: string;
  let file: string;
  let quarantine: string;
  const journal = (key = KEY) => new FilePaymentJournal(folder, key, quiet);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    folder = join(dir, "data");
    file = join(folder, "payments.journal");
    quarantine = join(folder, QUARANTINE_FILE);
    vi.clearAllMocks();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("appends one line per confirmation with its MAC, flushed to disk before it resolves", async () => {
    // Every FileHandle shares one prototype: its sync is watched, and what was on disk then.
    const probe = await open(join(dir, "probe"), "w");
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const onDisk: string[] = [];
    const sync = vi.spyOn(prototype, "sync").mockImplementation(async function (this: FileHandle) {
      onDisk.push(existsSync(file) ? readFileSync(file, "utf8") : "");
    });
    const kept = journal();
    await kept.append(payment(1));
    expect(sync).toHaveBeenCalled();
    expect(onDisk[0]).toBe(`${lineOf(payment(1))}\n`);
    await kept.append(payment(2));
    expect(readFileSync(file, "utf8").split("\n")).toEqual([
      lineOf(payment(1)),
      lineOf(payment(2)),
      "",
    ]);
  });

  it("keeps one line per payment: the same confirmation again adds nothing, across processes", async () => {
    const kept = journal();
    await kept.append(payment(1));
    // Delivered again, or found again by a lookup, while the ledger is away: ten times.
    for (let again = 0; again < 10; again++) await kept.append(payment(1));
    // Concurrently, and by the next process.
    await Promise.all([kept.append(payment(1)), kept.append(payment(2)), kept.append(payment(2))]);
    await journal().append({ ...payment(2), charge: { ...payment(2).charge, at: 5 } });
    expect(readFileSync(file, "utf8").split("\n")).toEqual([
      lineOf(payment(1)),
      lineOf(payment(2)),
      "",
    ]);
    // The same charge id by another method is another payment.
    const khalti = { ...payment(1), method: "khalti" as const };
    await kept.append(khalti);
    expect((await journal().read()).payments).toEqual([payment(1), payment(2), khalti]);
  });

  it("is read back in order by the next process, and is empty when there is none", async () => {
    expect(await journal().read()).toEqual({ payments: [], quarantined: 0 });
    const first = journal();
    for (const n of [1, 2, 3]) await first.append(payment(n));
    expect(await journal().read()).toEqual({
      payments: [payment(1), payment(2), payment(3)],
      quarantined: 0,
    });
  });

  it("keeps a payment given back in part outside the bot as such (it must never pay for anything)", async () => {
    const part = { ...payment(5), method: "khalti" as const, refundedOutside: { minor: null } };
    await journal().append(part);
    expect((await journal().read()).payments).toEqual([part]);
    // A line whose refundedOutside cannot be read is not believed, even with its MAC.
    writeFileSync(
      file,
      `${lineOf({ ...payment(6), refundedOutside: { minor: "some" } } as never)}\n`,
    );
    expect(await journal().read()).toEqual({ payments: [], quarantined: 1 });
  });

  it("drops what the ledger took, keeps what was appended meanwhile, and is removed once empty", async () => {
    const kept = journal();
    for (const n of [1, 2, 3]) await kept.append(payment(n));
    await Promise.all([kept.settle(new Set(["charge-1", "charge-3"])), kept.append(payment(4))]);
    expect((await kept.read()).payments).toEqual([payment(2), payment(4)]);
    expect(existsSync(`${file}.tmp`)).toBe(false);
    await kept.settle(new Set(["charge-2", "charge-4"]));
    expect(existsSync(file)).toBe(false);
    expect((await kept.read()).payments).toEqual([]);
  });

  it("believes no line edited, forged, garbled or without a MAC: each is quarantined, never lost", async () => {
    const edited = lineOf(payment(2)).replace('"charge-2"', '"charge-9"');
    const forged = lineOf(payment(3), OTHER_KEY);
    const garbled = `${lineOf(payment(4)).slice(0, 30)}}}`;
    const beforeMacs = JSON.stringify(payment(5));
    const lines = [lineOf(payment(1)), edited, forged, garbled, beforeMacs, lineOf(payment(6))];
    mkdirSync(folder);
    writeFileSync(file, `${lines.join("\n")}\n`);

    const kept = journal();
    expect(await kept.read()).toEqual({ payments: [payment(1), payment(6)], quarantined: 4 });
    // Moved, as they were, in their order; the journal keeps only what it believes.
    expect(readFileSync(quarantine, "utf8")).toBe(
      `${[edited, forged, garbled, beforeMacs].join("\n")}\n`,
    );
    expect(readFileSync(file, "utf8")).toBe(`${lineOf(payment(1))}\n${lineOf(payment(6))}\n`);
    expect(quiet.error.mock.calls.map(([fields]) => fields)).toEqual([
      { line: 2, why: "MAC fails" },
      { line: 3, why: "MAC fails" },
      { line: 4, why: "unreadable" },
      { line: 5, why: "no MAC" },
    ]);
    // Said once: the next read counts nothing new, and the quarantine only grows.
    expect(await kept.read()).toEqual({ payments: [payment(1), payment(6)], quarantined: 0 });
    appendFileSync(file, `${forged}\n`);
    expect((await journal().read()).quarantined).toBe(1);
    expect(readFileSync(quarantine, "utf8").split("\n")).toHaveLength(6);
  });

  it("a key other than the writer's believes nothing (BOT_TOKEN or PAYMENT_JOURNAL_KEY changed)", async () => {
    await journal().append(payment(1));
    expect(await journal(OTHER_KEY).read()).toEqual({ payments: [], quarantined: 1 });
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(quarantine, "utf8")).toBe(`${lineOf(payment(1))}\n`);
  });

  it("quarantines a torn last line, and starts the next entry on a line of its own", async () => {
    const kept = journal();
    await kept.append(payment(1));
    appendFileSync(file, lineOf(payment(2)).slice(0, 40));
    // Quarantined by the append that met it (each entry is looked for there: one per payment).
    await kept.append(payment(3));
    expect(await kept.read()).toEqual({ payments: [payment(1), payment(3)], quarantined: 1 });
    expect(readFileSync(quarantine, "utf8")).toBe(`${lineOf(payment(2)).slice(0, 40)}\n`);
    await kept.append(payment(4));
    appendFileSync(file, lineOf(payment(5)).slice(0, 40));
    expect((await journal().read()).quarantined).toBe(1);
    expect(quiet.error).toHaveBeenLastCalledWith(
      { line: 4, why: "torn" },
      "a payment journal line moved to the quarantine",
    );
  });

  it("flushes the quarantine before the journal loses the line", async () => {
    mkdirSync(folder);
    writeFileSync(file, `${lineOf(payment(1), OTHER_KEY)}\n`);
    const probe = await open(join(dir, "probe"), "w");
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const journalAtSync: string[] = [];
    vi.spyOn(prototype, "sync").mockImplementation(async () => {
      journalAtSync.push(existsSync(file) ? readFileSync(file, "utf8") : "gone");
    });
    await journal().read();
    // The first flush (the quarantine's) happens while the journal still holds the line.
    expect(journalAtSync[0]).toBe(`${lineOf(payment(1), OTHER_KEY)}\n`);
    expect(existsSync(file)).toBe(false);
  });

  it("fails to append where it cannot write, rather than pretending", async () => {
    const notADirectory = folder;
    writeFileSync(notADirectory, "");
    const kept = journal();
    await expect(kept.append(payment(1))).rejects.toThrow();
    // Nothing can be there: no journal, not a failure.
    expect(await kept.read()).toEqual({ payments: [], quarantined: 0 });
    // A failure does not block the operations after it, once the directory can be made.
    rmSync(notADirectory);
    await kept.append(payment(2));
    expect((await kept.read()).payments).toEqual([payment(2)]);
  });

  it("sets a payment aside in a file of its own once per method and charge id", async () => {
    const kept = journal();
    const odd = { ...payment(1), minor: 0 };
    expect(await kept.setAside(odd, "refused")).toBe(true);
    expect(await kept.setAside(odd, "refused")).toBe(false);
    expect(await kept.setAside({ ...odd, method: "khalti" }, "refused")).toBe(true);
    const lines = readFileSync(join(folder, SET_ASIDE_FILE), "utf8").trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).payment)).toEqual([
      odd,
      { ...odd, method: "khalti" },
    ]);
    expect(existsSync(file)).toBe(false);
  });
});

describe("the journal's key and folder", () => {
  const base = {
    BOT_TOKEN: "123:abc",
    PROVIDER_BASE_URL: "https://provider.example",
    PROVIDER_TOKEN: "journal-test-provider-token",
    PAYMENT_MODE: "none",
    TOPUP_USER_IDS: "*",
  };

  it("is derived from BOT_TOKEN unless PAYMENT_JOURNAL_KEY is set, and is neither", () => {
    const derived = loadConfig(base).paymentJournal.key;
    expect(derived).toHaveLength(32);
    expect(Buffer.from(derived).toString("utf8")).not.toContain("abc");
    expect(loadConfig({ ...base, BOT_TOKEN: "123:abd" }).paymentJournal.key).not.toEqual(derived);
    expect(loadConfig(base).paymentJournal.key).toEqual(derived);
    const given = "s".repeat(40);
    expect(
      Buffer.from(
        loadConfig({ ...base, PAYMENT_JOURNAL_KEY: given }).paymentJournal.key,
      ).toString(),
    ).toBe(given);
  });

  it("lives in DATA_DIR unless PAYMENT_JOURNAL_DIR says otherwise", () => {
    expect(loadConfig({ ...base, DATA_DIR: "/d" }).paymentJournal.dir).toBe("/d");
    expect(
      loadConfig({ ...base, DATA_DIR: "/d", PAYMENT_JOURNAL_DIR: "/j" }).paymentJournal.dir,
    ).toBe("/j");
  });

  it("tells whether two folders, made or not, are on one file system", () => {
    const here = mkdtempSync(join(tmpdir(), "disk-"));
    expect(onOneFileSystem(join(here, "a", "b"), join(here, "c"))).toBe(true);
    expect(onOneFileSystem(here, "/proc")).toBe(false);
    rmSync(here, { recursive: true, force: true });
  });
});

describe("the journal beside the embedded ledger", () => {
  const env = {
    BOT_TOKEN: "123:abc",
    PROVIDER_BASE_URL: "https://provider.example",
    PROVIDER_TOKEN: "journal-test-provider-token",
    PAYMENT_METHODS: "telegram",
    PAYMENT_PROVIDER_TOKEN: "284685063:TEST:journal",
    CURRENCY: "NPR",
    REDIS_URL: "redis://127.0.0.1:6379",
  };
  const warning = (extra: Record<string, string>, options?: AppOptions) => {
    const { logger, lines } = captureLogs("warn", { ...env, ...extra });
    // Built, not started: nothing is opened.
    createApp(loadConfig({ ...env, ...extra }), logger, options);
    return lines().filter((line) =>
      line.includes("the payment journal is on the embedded ledger's disk"),
    );
  };

  it("is said at start, with the way out; not with the journal on another disk or with PostgreSQL", () => {
    const data = mkdtempSync(join(tmpdir(), "data-"));
    const said = warning({ DATA_DIR: data });
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("PAYMENT_JOURNAL_DIR");
    expect(warning({ DATA_DIR: data, PAYMENT_JOURNAL_DIR: "/dev/shm/topup-journal" })).toEqual([]);
    expect(warning({ DATA_DIR: data, DATABASE_URL: "postgres://u@127.0.0.1:1/db" })).toEqual([]);
    // The ledger opened is the one that counts: the playground's lives in memory.
    const inMemory = { ledger: { kind: "embedded" as const, dataDir: null } };
    expect(warning({ DATA_DIR: data }, inMemory)).toEqual([]);
    rmSync(data, { recursive: true, force: true });
  });
});
